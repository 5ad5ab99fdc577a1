-- Fair shares per group (SendOptions.group, ConsumerOptions.groupRateLimit / groupMaxInFlight; docs/internals/groups.md).
-- A grouped message's member is "|<seq8><group>\31<id>" (includes/format.lua). Its keys, named after the messages
-- key (same hash tag, so the same slot), exist only for queues that use groups:
--   g:<group>:p  ZSET  the group's pending members -> due time (grouped messages are never in delayed)
--   g:<group>:i  ZSET  the group's members in flight -> when claimed (its count against group-max-in-flight)
--   groups       ZSET  group -> when it may next be claimed: max(its head's due time, its next permit, its hold), or
--                      CAPPED while it is at its in-flight cap (a settle that frees a place re-scores it); absent
--                      while it has nothing pending
--   group-flow   HASH  't:<group>' GCRA theoretical arrival time (us), 'p:<group>' next permit (ms), 'h:<group>'
--                      hold (ms, SlowDownException), 'c:<group>' the cap it was found at, 'pending' grouped messages
--                      pending (stats: no sum over groups)
--   group-idle   ZSET  group -> when the flow fields of a group that went quiet stop limiting it (group_rest)
-- The groups index is itself one member of delayed, GROUPS_MARK, scored at the index's earliest score below CAPPED
-- (or earlier, when the flow fields of a group that went quiet are to be swept: group_rest):
-- a claim sees it among the due members it reads anyway (a queue without groups pays nothing: no command, no key),
-- and the head of delayed, which every script already uses as the next event and for wake-ups, includes the groups.
-- Only commands of the documented ACL rule set (docs/redis-layout.md): sorted sets and hashes, no SET or HINCRBY.
--- @include "format"
--- @include "wake"
--- @include "gcra"

local CAPPED = 4503599627370496 -- 2^52 ms, above any due time a claim reads as due

local function group_base(keys)
  return keys.base
end

-- Adds `n` to the count of grouped messages pending (HGET and HSET rather than HINCRBY: the ACL rule set)
local function group_count(flow, n)
  local count = tonumber(redis.call('HGET', flow, 'pending') or '0') + n
  if count > 0 then
    redis.call('HSET', flow, 'pending', string.format('%d', count))
  else
    redis.call('HDEL', flow, 'pending')
  end
end

-- A group with nothing pending and nothing in flight keeps its flow fields only while they still limit it (its
-- arrival time or hold ahead of the clock; `now` ms, nil when the caller has not read the clock): then it is put in
-- `group-idle` at the time they stop mattering, and a later claim deletes them (group_sweep), so a group that goes
-- quiet leaves nothing behind and one that comes back within its limit's time still finds them.
local function group_rest(base, group, now)
  local flow = base .. 'group-flow'
  local f = redis.call('HMGET', flow, 't:' .. group, 'h:' .. group)
  local rested = math.max(math.ceil(tonumber(f[1] or '0') / 1000), tonumber(f[2] or '0'))
  if rested == 0 or (now ~= nil and rested <= now) then
    redis.call('HDEL', flow, 't:' .. group, 'p:' .. group, 'h:' .. group, 'c:' .. group)
  else
    redis.call('ZADD', base .. 'group-idle', string.format('%d', rested), group)
  end
end

-- Moves the marker in delayed to the earliest of the index's first score (below CAPPED) and the first time in
-- group-idle (a claim then sweeps: group_sweep), or removes it; publishes a wake-up when it comes before the head
-- consumers sleep for (a settle freed a capped group, a send made a group due sooner).
local function group_mark(keys)
  local base = group_base(keys)
  local at = nil
  local first = redis.call('ZRANGE', base .. 'groups', 0, 0, 'WITHSCORES')
  if first[2] and tonumber(first[2]) < CAPPED then at = tonumber(first[2]) end
  local idle = redis.call('ZRANGE', base .. 'group-idle', 0, 0, 'WITHSCORES')
  if idle[2] and (at == nil or tonumber(idle[2]) < at) then at = tonumber(idle[2]) end
  local mark = redis.call('ZSCORE', keys.delayed, GROUPS_MARK)
  if at ~= nil then
    if not mark or tonumber(mark) ~= at then
      local old_head = pending_head(keys.delayed)
      redis.call('ZADD', keys.delayed, string.format('%d', at), GROUPS_MARK)
      wake_if_earlier(base .. 'wake', at, old_head)
    end
  elseif mark then
    redis.call('ZREM', keys.delayed, GROUPS_MARK)
  end
  return first[1] ~= nil -- whether any group is indexed
end

-- Deletes the flow fields of at most 20 groups that went quiet and whose limits no longer bind (group_rest)
local function group_sweep(keys, now)
  local base = group_base(keys)
  local idle = redis.call('ZRANGEBYSCORE', base .. 'group-idle', '-inf', now, 'LIMIT', 0, 20)
  if #idle == 0 then return end
  redis.call('ZREM', base .. 'group-idle', unpack(idle))
  for _, group in ipairs(idle) do
    if not redis.call('ZSCORE', base .. 'groups', group) and redis.call('ZCARD', base .. 'g:' .. group .. ':i') == 0 then
      group_rest(base, group, now)
    end
  end
  group_mark(keys)
end

-- Re-scores `group` in the index from its pending head, next permit, hold and cap, then moves the marker in delayed
-- (group_mark). `now` (ms, or nil): see group_rest.
local function group_index(keys, group, now)
  local base = group_base(keys)
  local flow = base .. 'group-flow'
  local index = base .. 'groups'
  local head = head_score(base .. 'g:' .. group .. ':p')
  if head == nil then
    redis.call('ZREM', index, group)
    if redis.call('ZCARD', base .. 'g:' .. group .. ':i') == 0 then group_rest(base, group, now) end
  else
    local f = redis.call('HMGET', flow, 'p:' .. group, 'h:' .. group, 'c:' .. group)
    local score = math.max(head, tonumber(f[1] or '0'), tonumber(f[2] or '0'))
    if f[3] then
      if redis.call('ZCARD', base .. 'g:' .. group .. ':i') >= tonumber(f[3]) then
        score = CAPPED
      else
        redis.call('HDEL', flow, 'c:' .. group)
      end
    end
    -- a head scored past any due time (+inf, written by hand: the claim's housekeeping dead-letters it) is never due;
    -- '%d' would turn it into -2^63, due at once for ever
    redis.call('ZADD', index, score < 9007199254740992 and string.format('%d', score) or '+inf', group)
  end
  group_mark(keys)
end

-- A grouped member becomes pending at `due` (a send, a retry, a hand back, a later, an expired lease, a requeue);
-- it leaves the group's in-flight set if it was there, under `was` when it comes back under a new member of the same
-- group (a hand back or later: settle.lua renumbers it), else under `member`.
local function group_pend(keys, member, due, now, was)
  local group = group_of(member)
  if group == nil then return end -- an orphan (group_of): dropped, the caller has taken it out of its set
  local base = group_base(keys)
  redis.call('ZREM', base .. 'g:' .. group .. ':i', was or member)
  if redis.call('ZADD', base .. 'g:' .. group .. ':p', string.format('%d', due), member) == 1 then
    group_count(base .. 'group-flow', 1)
  end
  group_index(keys, group, now)
end

-- A grouped member leaves for good or for now (ack, dead letter, cancel, replace, expiry: lifecycle.lua's forget)
local function group_forget(keys, member, now)
  local group = group_of(member)
  if group == nil then return end -- in no group's set (group_of)
  local base = group_base(keys)
  redis.call('ZREM', base .. 'g:' .. group .. ':i', member)
  if redis.call('ZREM', base .. 'g:' .. group .. ':p', member) == 1 then
    group_count(base .. 'group-flow', -1)
  end
  group_index(keys, group, now)
end

-- The due time of a pending grouped member, or nil (in flight or gone)
local function group_pending_due(keys, member)
  local group = group_of(member)
  if group == nil then return nil end
  local score = redis.call('ZSCORE', group_base(keys) .. 'g:' .. group .. ':p', member)
  return score and tonumber(score) or nil
end

-- Moves a pending grouped member to a new due time (reschedule)
local function group_move(keys, member, due)
  local group = group_of(member)
  if group == nil then return end
  redis.call('ZADD', group_base(keys) .. 'g:' .. group .. ':p', 'XX', string.format('%d', due), member)
  group_index(keys, group, nil)
end

-- Holds the claims of one group until `until_ms` at least (SlowDownException of a grouped message); returns the end.
local function group_hold(keys, group, until_ms)
  local flow = group_base(keys) .. 'group-flow'
  local hold = tonumber(redis.call('HGET', flow, 'h:' .. group) or '0')
  if until_ms > hold then
    redis.call('HSET', flow, 'h:' .. group, string.format('%d', until_ms))
    hold = until_ms
  end
  group_index(keys, group, nil)
  return hold
end

-- The claim's group limits from its ARGV strings (interval us, tolerance us, cap in flight; nil or '0': none)
local function group_limits(interval, tolerance, cap)
  return { interval = tonumber(interval or '0'), tolerance = tonumber(tolerance or '0'), cap = tonumber(cap or '0') }
end

-- The claim's candidates from the groups whose turn has come (earliest next claim first), at most `room` in all,
-- appended to members / ids / scores as claim.lua collects ungrouped ones. Each group gives at most what its permits
-- and its in-flight room allow; a group with none is re-scored (its next permit) or marked capped, and not read.
-- Nothing is moved yet: group_claimed() does that for the candidates the claim took. Returns the groups read.
local function group_candidates(keys, limits, room, now, now_us, members, ids, scores)
  local base = group_base(keys)
  local flow = base .. 'group-flow'
  local visits = {}
  group_sweep(keys, now)
  local due = redis.call('ZRANGEBYSCORE', base .. 'groups', '-inf', now, 'LIMIT', 0, room)
  for _, group in ipairs(due) do
    if room <= 0 then break end
    local want, tat, capped = room, nil, false
    if limits.interval > 0 then
      local permits
      permits, tat = gcra_permits(limits.interval, limits.tolerance, tonumber(redis.call('HGET', flow, 't:' .. group) or '0'), now_us)
      if permits < want then want = permits end
      if want <= 0 then
        redis.call('HSET', flow, 'p:' .. group, string.format('%d', math.ceil((tat - limits.tolerance) / 1000)))
      end
    end
    if want > 0 and limits.cap > 0 then
      local free = limits.cap - redis.call('ZCARD', base .. 'g:' .. group .. ':i')
      if free < want then want = free end
      if want <= 0 then redis.call('HSET', flow, 'c:' .. group, limits.cap) end
    end
    if want > 0 then
      local got = redis.call('ZRANGEBYSCORE', base .. 'g:' .. group .. ':p', '-inf', now, 'WITHSCORES', 'LIMIT', 0, want)
      local read = #got / 2
      for k = 1, #got, 2 do
        if group_of(got[k]) == group then
          members[#members + 1] = got[k]
          ids[#ids + 1] = id_of(got[k])
          scores[#scores + 1] = got[k + 1] -- as stored: the claim screens it (a score no script writes) and formats it
        else
          -- a member of no group or of another (written by hand or corrupted, group_of): an orphan here, dropped,
          -- and off the pending count if it was on it (the count, too low otherwise, stops at 0: group_count)
          if redis.call('ZREM', base .. 'g:' .. group .. ':p', got[k]) == 1 then group_count(flow, -1) end
          read = read - 1
        end
      end
      room = room - read
      if read > 0 then visits[#visits + 1] = { group = group, tat = tat } else group_index(keys, group, now) end
    else
      group_index(keys, group, now)
    end
  end
  return visits
end

-- Moves the grouped members of `taken` (members the claim put in flight) out of their groups' pending sets, spends
-- their groups' permits and re-scores every group read (a group whose candidates all expired or did not fit the
-- byte budget included).
local function group_claimed(keys, limits, visits, taken, now)
  local base = group_base(keys)
  local flow = base .. 'group-flow'
  local by_group = {}
  for _, member in ipairs(taken) do
    local group = is_grouped(member) and group_of(member)
    if group then
      local list = by_group[group]
      if not list then list = {}; by_group[group] = list end
      list[#list + 1] = member
    end
  end
  for _, visit in ipairs(visits) do
    local group = visit.group
    local list = by_group[group]
    if list then
      local moved = redis.call('ZREM', base .. 'g:' .. group .. ':p', unpack(list))
      if moved > 0 then group_count(flow, -moved) end
      local scored = {}
      for _, member in ipairs(list) do
        scored[#scored + 1] = now
        scored[#scored + 1] = member
      end
      redis.call('ZADD', base .. 'g:' .. group .. ':i', unpack(scored))
      if visit.tat ~= nil then
        local tat = gcra_spend(visit.tat, #list, limits.interval)
        redis.call('HSET', flow, 't:' .. group, string.format('%.0f', tat))
        local permit = math.ceil((tat - limits.tolerance) / 1000)
        if permit > now then
          redis.call('HSET', flow, 'p:' .. group, string.format('%d', permit))
        else
          redis.call('HDEL', flow, 'p:' .. group)
        end
      end
      if limits.cap > 0 and redis.call('ZCARD', base .. 'g:' .. group .. ':i') >= limits.cap then
        redis.call('HSET', flow, 'c:' .. group, limits.cap)
      end
    end
    group_index(keys, group, now)
  end
end
