-- Counts a queue's messages (QueueStats) and reads its flow state (QueueFlow).
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel (unused)
-- Returns: now, pending, due now, in flight, dead, next due ('' if none), then the flow state (flow.lua's flow_view):
--          the limits the claims apply ('' none), the claim rate per second ('' when not counted), the due messages
--          the limits or a hold hold back now (0 while paused), the end of an active hold ('' none).
--- @include "clock"
--- @include "wake"
--- @include "flow"
local now, now_us = clock()
local next_due = head_score(KEYS[2])
local ready = redis.call('ZCOUNT', KEYS[2], '-inf', now)
local limits, rate, room, hold = flow_view(KEYS[11], KEYS[3], now, now_us)
-- a paused queue hands nothing out whatever the limits: the pause holds its due messages, not a limit
local throttled = 0
if room >= 0 and ready > room and redis.call('HEXISTS', KEYS[10], 'since') == 0 then throttled = ready - room end
return {
  string.format('%d', now),
  redis.call('ZCARD', KEYS[2]),
  ready,
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[6]),
  next_due and string.format('%d', next_due) or '',
  limits,
  rate,
  throttled,
  hold and string.format('%d', hold) or ''
}
