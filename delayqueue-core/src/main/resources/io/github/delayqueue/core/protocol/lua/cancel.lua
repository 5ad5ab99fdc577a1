-- Removes a pending or in-flight message (includes/cancelling.lua says what a cancel does).
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel, 2 id
-- Returns: 1 if it was pending, 2 if it was in flight, 0 if there was none (delivered, dead or never sent); for a
--          member of a job set, "<1 or 2>:<set id>" (its mark written: includes/sets.lua), which the client forwards.
--- @include "keys"
--- @include "cancelling"
local envelope = redis.call('HGET', KEYS[1], ARGV[2])
if not envelope then return 0 end
local was = cancel_live(queue_keys(KEYS), ARGV[1], KEYS[11] or (queue_keys(KEYS).base .. 'flow'), ARGV[2], envelope)
local set = set_in(envelope)
if set then return was .. ':' .. set end
return was
