-- Writes messages: a lone send, or a batch the Combiner put together.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel, 2 "1" replace existing ids / "0" keep them (if-absent),
--       then triples: id, due ("+<delayMs>" from the Redis clock or "@<epochMs>"), body
-- Returns: one flag per message: 1 written, 0 kept the existing message (if-absent), or the id is remembered after
--          delivery (if-absent, and the body carries a dedup window: includes/remember.lua).
-- A lone send (one triple: the Combiner found no other send to combine with) takes a short path. The batch
-- path's tables, duplicate check and unpack cost a lone send more than its writes: if-absent needs only
-- HEXISTS, replace one HGET. (Not HSETNX, which would save a call: the documented ACL rule set of
-- docs/redis-layout.md does not allow it, and an upgrade must not need a wider ACL.) Redis CPU per lone send,
-- EVALSHA in a loop from redis-benchmark on the 2-core box (median of 5, alternating): 74 us by the batch path,
-- 52 us by this path's first version, with HSETNX (RDelayedQueue's offer: 51 us); see docs/benchmarks.md.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "wake"
--- @include "lifecycle"
--- @include "remember"
--- @include "groups"
--- @include "priorities"
-- A body with the header "dq-group" (includes/format.lua's group_in) is a grouped message: it goes to its group's
-- set (includes/groups.lua), not to delayed; one with "dq-priority" to its priority's set (includes/priorities.lua); a
-- body without headers costs one byte compare more.
if #ARGV == 5 then
  local id, spec = ARGV[3], ARGV[4]
  local existing = nil
  local window = window_of(ARGV[5])
  if ARGV[2] == '1' then
    existing = redis.call('HGET', KEYS[1], id)
  elseif redis.call('HEXISTS', KEYS[1], id) == 1 then
    return {0} -- if-absent, and the id is live: kept
  elseif window and is_remembered(queue_keys(KEYS), id) then
    return {0} -- if-absent, and the id was delivered within its window: a duplicate
  end
  local now, now_us = clock()
  local due
  if string.byte(spec, 1) == 64 then -- '@'
    due = tonumber(string.sub(spec, 2))
  else
    due = delay_base(now_us) + tonumber(string.sub(spec, 2))
  end
  local s = encode8(reserve_sequence(KEYS[9], 1))
  local envelope = '2' .. s .. encode8(now) .. ARGV[5]
  -- the wake-up test of wake_if_earlier (nothing pending, or due before the head), with one ZCOUNT: it answers a
  -- number, where reading the head's score costs a reply of two strings (1.4 against 0.6 us per call, 200k pending)
  local due_text = string.format('%d', due)
  local ahead = redis.call('ZCOUNT', KEYS[2], '(-inf', due_text) -- past the priorities' markers
  if existing then
    forget(queue_keys(KEYS), id, member_of(id, existing))
  end
  redis.call('HSET', KEYS[1], id, envelope)
  local group = group_in(ARGV[5], 1)
  if group then
    group_pend(queue_keys(KEYS), '|' .. s .. group .. '\31' .. id, due, nil) -- wakes consumers itself
  else
    local level = priority_in(ARGV[5], 1)
    if level then
      priority_pend(queue_keys(KEYS), '^' .. level .. s .. id, due_text)
    else
      redis.call('ZADD', KEYS[2], due_text, '~' .. s .. id)
    end
    if ahead == 0 then wake_if_earlier(ARGV[1], due, nil) end
  end
  note_window(queue_keys(KEYS), id, window)
  return {1}
end
local now, now_us = clock()
local replace = ARGV[2] == '1'
local old_head = pending_head(KEYS[2])
local ids = {}
local seen = {}
for j = 3, #ARGV, 3 do
  if seen[ARGV[j]] then return redis.error_reply('duplicate id in one batch: ' .. ARGV[j]) end
  seen[ARGV[j]] = true
  ids[#ids + 1] = ARGV[j]
end
local result = {}
if #ids == 0 then return result end
-- existing ids read with one HMGET, sequence numbers reserved with one INCRBY, and the messages written
-- with one ZADD and one HSET: a few commands per batch rather than four per message
local existing = redis.call('HMGET', KEYS[1], unpack(ids))
local queue = queue_keys(KEYS)
local windows = {}
local writes = 0
for i = 1, #ids do
  windows[i] = window_of(ARGV[5 + (i - 1) * 3])
  if existing[i] and not replace then
    result[i] = 0
  elseif windows[i] and not replace and is_remembered(queue, ids[i]) then
    result[i] = 0
  else
    result[i] = 1
    writes = writes + 1
  end
end
if writes == 0 then return result end
local seq = reserve_sequence(KEYS[9], writes) - 1
local enqueued = encode8(now)
local prefix = nil -- the first 7 digits of the sequence number, recomputed every 64 sends
local earliest = nil
local scores, envelopes, grouped, prioritized = {}, {}, {}, {}
-- The messages of a batch mostly share one due spec: it is parsed once, and the score is handed to
-- ZADD as a string, because Redis turns every Lua number argument into a string with a "%.17g" format.
local last_spec, due, due_text = nil, nil, nil
for i, id in ipairs(ids) do
  if result[i] == 1 then
    local j = 3 + (i - 1) * 3
    local spec, body = ARGV[j + 1], ARGV[j + 2]
    if existing[i] then forget(queue, id, member_of(id, existing[i])) end
    note_window(queue, id, windows[i])
    if spec ~= last_spec then -- Lua strings are interned: this compares pointers
      if string.byte(spec, 1) == 64 then -- '@'
        due = tonumber(string.sub(spec, 2))
      else
        due = delay_base(now_us) + tonumber(string.sub(spec, 2))
      end
      last_spec, due_text = spec, string.format('%d', due)
    end
    seq = seq + 1
    local last = seq % 64
    if prefix == nil or last == 0 then prefix = string.sub(encode8(seq), 1, 7) end
    local s = prefix .. string.sub(DIGITS64, last + 1, last + 1)
    local group = group_in(body, 1)
    local level = not group and priority_in(body, 1)
    if group then
      grouped[#grouped + 1] = { '|' .. s .. group .. '\31' .. id, due }
    elseif level then -- one ZADD per priority for the call
      if not prioritized[level] then prioritized[level] = {} end
      local run = prioritized[level]
      run[#run + 1] = due_text
      run[#run + 1] = '^' .. level .. s .. id
    else
      scores[#scores + 1] = due_text
      scores[#scores + 1] = '~' .. s .. id
    end
    envelopes[#envelopes + 1] = id
    envelopes[#envelopes + 1] = '2' .. s .. enqueued .. body
    if earliest == nil or due < earliest then earliest = due end
  end
end
if #scores > 0 then redis.call('ZADD', KEYS[2], unpack(scores)) end
redis.call('HSET', KEYS[1], unpack(envelopes))
for _, g in ipairs(grouped) do group_pend(queue, g[1], g[2], nil) end
for level, run in pairs(prioritized) do priority_pend_all(queue, level, run) end
wake_if_earlier(ARGV[1], earliest, old_head)
return result
