-- Holds the claims of a queue (one partition's keys) for a while, or forgets the limits the claims recorded.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel (unused), 2 how long (ms, from the Redis clock): a handler threw SlowDownException; or
--       'forget-limits': a consumer without limits runs (includes/flow.lua's 'limits' and 'claims'); both that and
--       'mark-groups' (a consumer with limits runs) also put the groups' marker back in delayed (includes/groups.lua's
--       group_mark: an older release's claim deletes it), on the pollers' periodic path, never on send/claim/settle;
--       3 (optional, with a duration) the group to hold instead of the queue (includes/groups.lua)
-- Returns: the end of the hold (ms, Redis clock): the later of this one and one already set; 0 for 'forget-limits'
--          and 'mark-groups'.
--- @include "clock"
--- @include "flow"
--- @include "keys"
--- @include "groups"
if ARGV[2] == 'mark-groups' or ARGV[2] == 'forget-limits' then group_mark(queue_keys(KEYS)) end
if ARGV[2] == 'mark-groups' then return 0 end
if ARGV[2] == 'forget-limits' then
  -- and the claim counts: a queue without limits shows neither (QueueFlow.NONE once no hold remains); 'tat' stays,
  -- so a consumer with limits that comes back gets no fresh burst
  redis.call('HDEL', KEYS[11], 'limits', 'claims')
  return 0
end
if ARGV[3] then return group_hold(queue_keys(KEYS), ARGV[3], now_ms() + tonumber(ARGV[2])) end
return flow_hold(KEYS[11], now_ms() + tonumber(ARGV[2]))
