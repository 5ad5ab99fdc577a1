-- Holds the claims of a queue (one partition's keys) for a while: a handler threw SlowDownException.
-- KEYS: the ten of common.lua, then 11 the flow hash (flow.lua)
-- ARGV: 1 wake channel (unused), 2 how long (ms, from the Redis clock)
-- Returns the end of the hold (ms, Redis clock): the later of this one and one already set.
return flow_hold(KEYS[11], now_ms() + tonumber(ARGV[2]))
