-- Removes a pending or in-flight message.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel, 2 id
-- Returns: 1 if it was pending, 2 if it was in flight, 0 if there was none (delivered, dead or never sent).
-- A message in flight is gone for its delivery too: every settle of that delivery is stale from here on, and the
-- wake channel says "cancel:<member>" (the member names this send of the id, not a later one), so the consumer running
-- it interrupts its handler at once (a consumer of an older release reads it as a wake-up naming no due time, and
-- claims). Like every wake-up it runs under pcall: an ACL without the channel never fails the cancel, and the consumer
-- then learns of it when it next extends the lease. Its place under the cap on messages in flight is freed as a
-- settle frees it: a claim waiting for the cap is woken (includes/flow.lua).
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "lifecycle"
--- @include "flow"
local id = ARGV[2]
local envelope = redis.call('HGET', KEYS[1], id)
if not envelope then return 0 end
local member = member_of(id, envelope)
local running = redis.call('ZSCORE', KEYS[3], member)
forget(queue_keys(KEYS), id, member)
if running then
  redis.pcall('PUBLISH', ARGV[1], 'cancel:' .. member)
  if KEYS[11] then flow_freed(KEYS[11], ARGV[1], now_ms()) end
  return 2
end
return 1
