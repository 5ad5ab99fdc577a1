-- Counts a queue's messages (QueueStats).
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel (unused)
-- Returns: now, pending, due now, in flight, dead, next due ('' if none).
-- Grouped messages (includes/groups.lua) count as pending from the group-flow hash's counter; as due now, those of
-- at most the first 100 groups whose turn has come (a read bounded like a claim); the next due time is the earliest
-- of the ungrouped messages and the groups' next claim times (the head of delayed, which holds the groups' marker).
--- @include "clock"
--- @include "wake"
--- @include "keys"
--- @include "groups"
local now = now_ms()
local next_due = head_score(KEYS[2])
local pending, due_now = redis.call('ZCARD', KEYS[2]), redis.call('ZCOUNT', KEYS[2], '-inf', now)
local grouped = tonumber(redis.call('HGET', group_base(queue_keys(KEYS)) .. 'group-flow', 'pending') or '0')
if grouped > 0 or redis.call('ZSCORE', KEYS[2], GROUPS_MARK) then
  local base = group_base(queue_keys(KEYS))
  local mark = redis.call('ZSCORE', KEYS[2], GROUPS_MARK)
  if mark then
    pending = pending - 1
    if tonumber(mark) <= now then due_now = due_now - 1 end
  end
  pending = pending + grouped
  for _, group in ipairs(redis.call('ZRANGEBYSCORE', base .. 'groups', '-inf', now, 'LIMIT', 0, 100)) do
    due_now = due_now + redis.call('ZCOUNT', base .. 'g:' .. group .. ':p', '-inf', now)
  end
end
return {
  string.format('%d', now),
  pending,
  due_now,
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[6]),
  next_due and string.format('%d', next_due) or ''
}
