-- Holds the claims of a queue (one partition's keys) for a while, or forgets the limits the claims recorded.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel (unused), 2 how long (ms, from the Redis clock): a handler threw SlowDownException; or
--       'forget-limits': a consumer without limits starts (includes/flow.lua's 'limits')
-- Returns: the end of the hold (ms, Redis clock): the later of this one and one already set; 0 for 'forget-limits'.
--- @include "clock"
--- @include "flow"
if ARGV[2] == 'forget-limits' then
  redis.call('HDEL', KEYS[11], 'limits')
  return 0
end
return flow_hold(KEYS[11], now_ms() + tonumber(ARGV[2]))
