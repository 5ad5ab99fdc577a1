-- ARGV: 1 wake channel (unused), 2 id. Removes a pending or in-flight message. Returns 1 if it existed.
local id = ARGV[2]
local envelope = redis.call('HGET', KEYS[1], id)
if not envelope then return 0 end
forget(id, member_of(id, envelope))
return 1
