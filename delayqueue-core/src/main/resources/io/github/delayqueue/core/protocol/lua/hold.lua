-- Holds the claims of a queue (one partition's keys) for a while: a handler threw SlowDownException.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel (unused), 2 how long (ms, from the Redis clock), 3 (optional) the group to hold instead of
--       the queue (includes/groups.lua)
-- Returns: the end of the hold (ms, Redis clock): the later of this one and one already set.
--- @include "clock"
--- @include "flow"
--- @include "keys"
--- @include "groups"
if ARGV[3] then return group_hold(queue_keys(KEYS), ARGV[3], now_ms() + tonumber(ARGV[2])) end
return flow_hold(KEYS[11], now_ms() + tonumber(ARGV[2]))
