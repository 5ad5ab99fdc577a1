-- Removes a pending or in-flight message.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel (unused), 2 id
-- Returns: 1 if it existed, 0 if not
--- @include "keys"
--- @include "format"
--- @include "lifecycle"
local id = ARGV[2]
local envelope = redis.call('HGET', KEYS[1], id)
if not envelope then return 0 end
forget(queue_keys(KEYS), id, member_of(id, envelope))
return 1
