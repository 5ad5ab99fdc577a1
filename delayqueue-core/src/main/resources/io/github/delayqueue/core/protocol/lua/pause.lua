-- Pauses or resumes a queue's deliveries, or tells whether it is paused.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel, 2 op: "pause", "resume" or "status".
-- Returns: 1 or 0, by op:
--   pause:  marks the queue paused (claim.lua then hands out nothing); 1 if it was not paused before.
--   resume: deletes the mark and publishes a wake-up, so sleeping consumers claim at once; 1 if it was paused.
--   status: 1 if the queue is paused.
--- @include "clock"
local op = ARGV[2]
local paused = redis.call('HEXISTS', KEYS[10], 'since')
if op == 'status' then return paused end
if op == 'pause' then
  if paused == 1 then return 0 end
  redis.call('HSET', KEYS[10], 'since', string.format('%d', now_ms()))
  return 1
end
if paused == 0 then return 0 end
redis.call('HDEL', KEYS[10], 'since')
-- any due time wakes a sleeping consumer: it names "now", which is before every planned wake-up
redis.pcall('PUBLISH', ARGV[1], string.format('%d', now_ms()))
return 1
