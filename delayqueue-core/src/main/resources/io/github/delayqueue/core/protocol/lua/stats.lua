-- Counts a queue's messages (QueueStats).
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel (unused)
-- Returns: now, pending, due now, in flight, dead, next due ('' if none).
--- @include "clock"
--- @include "wake"
local now = now_ms()
local next_due = head_score(KEYS[2])
return {
  string.format('%d', now),
  redis.call('ZCARD', KEYS[2]),
  redis.call('ZCOUNT', KEYS[2], '-inf', now),
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[6]),
  next_due and string.format('%d', next_due) or ''
}
