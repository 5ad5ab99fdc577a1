-- Reads a page of pending or in-flight messages, or one message by its id.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel (unused), 2 what: 'delayed' or 'inflight' (a page by rank: 3 offset, 4 limit), 'group' (a page
--       by rank of one group's pending messages, includes/groups.lua: 3 offset, 4 limit, 5 the group) or
--       'id' (one message: 3 its id), 'status' (as 'id', and when the message is not live its history record:
--       includes/history.lua), 'exists' (whether a message is stored at all, live or not: 3 its id), or 'groups' (the
--       groups of grouped messages, includes/groups.lua: 3 limit).
-- For 'exists' returns: the Redis time, then 1 if the messages hash holds the id, else 0.
-- For 'status' of a message that is not live returns: the Redis time, then 'h', its record and when it was settled
--          (ms), or nothing more when the history holds none; of one in flight, as 'id' and then 'r' and its record
--          (the claim's running record, includes/history.lua) when the history holds one.
-- For 'groups' returns: the Redis time (ms), the number of groups with pending messages, then five fields per group,
--          the earliest next claim time first (groups at their in-flight cap last): group, pending, in flight, oldest
--          due time ('' if none pending), next claim time ('' at the cap).
-- Returns: the Redis time (ms), the size of the set read ('' for 'id'), then five fields per message:
--          id, state ('d' pending, 'i' in flight), score (due time, or lease deadline in flight), attempts (''
--          before the first claim), envelope, last error ('' if none). A member whose envelope is gone is skipped.
-- Read-only; touches at most 'limit' messages (the caller bounds it to 1,000), but for a page of pending messages of a
-- queue with priorities: it reads up to offset + limit members of delayed and of each marked priority's set, and
-- merges them (a deep page costs its offset).
--- @include "clock"
--- @include "format"
--- @include "keys"
--- @include "groups"
--- @include "priorities"
--- @include "history"
--- @include "lifecycle"
local out = { string.format('%d', now_ms()) }

local function add(id, state, score)
  local envelope = redis.call('HGET', KEYS[1], id)
  if not envelope then return end
  out[#out + 1] = id
  out[#out + 1] = state
  out[#out + 1] = string.format('%d', tonumber(score))
  out[#out + 1] = redis.call('HGET', KEYS[4], id) or ''
  out[#out + 1] = envelope
  out[#out + 1] = redis.call('HGET', KEYS[5], id) or ''
end

if ARGV[2] == 'exists' then
  out[2] = redis.call('HEXISTS', KEYS[1], ARGV[3])
  return out
end

if ARGV[2] == 'id' or ARGV[2] == 'status' then
  out[2] = ''
  local id = ARGV[3]
  local envelope = redis.call('HGET', KEYS[1], id)
  if envelope then
    local member = member_of(id, envelope)
    local score
    if is_grouped(member) then
      score = group_pending_due(queue_keys(KEYS), member)
    else
      score = pending_score(queue_keys(KEYS), member) -- delayed, or its priority's set
    end
    if score then
      add(id, 'd', score)
    else
      score = redis.call('ZSCORE', KEYS[3], member)
      if score then
        add(id, 'i', score)
        local record = ARGV[2] == 'status' and redis.call('HGET', history_keys(queue_keys(KEYS)), id)
        if record then
          out[#out + 1] = 'r'
          out[#out + 1] = record
        end
      end
    end
  end
  if ARGV[2] == 'status' and #out == 2 then
    local records, at = history_keys(queue_keys(KEYS))
    local record = redis.call('HGET', records, id)
    if record then
      out[2], out[3], out[4] = 'h', record, redis.call('ZSCORE', at, id) or '0'
    end
  end
  return out
end

if ARGV[2] == 'groups' then
  local base = group_base(queue_keys(KEYS))
  out[2] = redis.call('ZCARD', base .. 'groups')
  local page = redis.call('ZRANGE', base .. 'groups', 0, tonumber(ARGV[3]) - 1, 'WITHSCORES')
  for i = 1, #page, 2 do
    local group = page[i]
    local head = head_score(base .. 'g:' .. group .. ':p')
    out[#out + 1] = group
    out[#out + 1] = redis.call('ZCARD', base .. 'g:' .. group .. ':p')
    out[#out + 1] = redis.call('ZCARD', base .. 'g:' .. group .. ':i')
    out[#out + 1] = head and string.format('%d', head) or ''
    out[#out + 1] = tonumber(page[i + 1]) < CAPPED and page[i + 1] or ''
  end
  return out
end

local key = KEYS[2]
local state = 'd'
-- a queue with priorities (includes/priorities.lua): delayed past its markers and the marked sets, merged in due
-- order (then send order), each read up to the page's end
if ARGV[2] == 'delayed' and redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2] == '-inf' then
  local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
  local keys = { key }
  local total = redis.call('ZCOUNT', key, '(-inf', '+inf')
  for _, level in ipairs(marked_levels(queue_keys(KEYS))) do
    keys[#keys + 1] = queue_keys(KEYS).base .. 'priority:' .. level
    total = total + redis.call('ZCARD', keys[#keys])
  end
  local marked = redis.call('ZSCORE', key, GROUPS_MARK) -- skipped below: delayed reads one more for it
  if marked then total = total - 1 end
  out[2] = total
  local all = {}
  for _, k in ipairs(keys) do
    local part = redis.call('ZRANGEBYSCORE', k, '(-inf', '+inf', 'WITHSCORES', 'LIMIT', 0,
      offset + limit + ((marked and k == key) and 1 or 0))
    for i = 1, #part, 2 do
      if part[i] ~= GROUPS_MARK then all[#all + 1] = { part[i], tonumber(part[i + 1]) } end
    end
  end
  table.sort(all, function(x, y)
    if x[2] ~= y[2] then return x[2] < y[2] end
    return send_rank(x[1]) < send_rank(y[1])
  end)
  for i = offset + 1, math.min(offset + limit, #all) do add(id_of(all[i][1]), state, all[i][2]) end
  return out
end
if ARGV[2] == 'inflight' then key = KEYS[3]; state = 'i' end
if ARGV[2] == 'group' then key = group_base(queue_keys(KEYS)) .. 'g:' .. ARGV[5] .. ':p' end
out[2] = redis.call('ZCARD', key)
-- the groups' marker (includes/groups.lua) is in delayed but is no message: not counted, and skipped below (add()
-- finds no envelope for it), so a page that holds it is one message shorter
if state == 'd' and redis.call('ZSCORE', key, GROUPS_MARK) then out[2] = out[2] - 1 end
local offset = tonumber(ARGV[3])
local page = redis.call('ZRANGE', key, offset, offset + tonumber(ARGV[4]) - 1, 'WITHSCORES')
for i = 1, #page, 2 do
  add(id_of(page[i]), state, page[i + 1])
end
return out
