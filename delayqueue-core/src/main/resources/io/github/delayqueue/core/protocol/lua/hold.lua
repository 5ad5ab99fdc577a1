-- Holds the claims of a queue (one partition's keys) for a while, or forgets the limits the claims recorded.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel (unused), 2 how long (ms, from the Redis clock): a handler threw SlowDownException; or
--       'forget-limits': a consumer without limits runs (includes/flow.lua's 'limits' and 'claims'); both that and
--       'mark-groups' (a consumer with limits runs) also put the groups' marker back in delayed (includes/groups.lua's
--       group_mark: an older release's claim deletes it) and dead-letter a group's head scored +inf, on the pollers'
--       periodic path, never on send/claim/settle;
--       3 (optional, with a duration) the group to hold instead of the queue (includes/groups.lua)
-- Returns: the end of the hold (ms, Redis clock): the later of this one and one already set; for 'forget-limits' and
--          'mark-groups', 1 when job-set marks older than SET_MARK_SWEEP_MS wait to be forwarded (includes/sets.lua),
--          else 0: one ZRANGEBYSCORE on this periodic path.
--- @include "clock"
--- @include "flow"
--- @include "keys"
--- @include "groups"
--- @include "dead_letters"
local SET_MARK_SWEEP_MS = 10000
if ARGV[2] == 'mark-groups' or ARGV[2] == 'forget-limits' then
  local queue = queue_keys(KEYS)
  -- a group whose head is scored past any due time (+inf: written by hand) sits last in the index at +inf (groups.lua's
  -- group_index) and would stall its group for good: its head goes to the dead letters, as such a member of delayed
  -- does in the claim's housekeeping (burying it re-marks the groups). One ZRANGE more, only where groups exist.
  if group_mark(queue) then
    local last = redis.call('ZRANGE', queue.base .. 'groups', -1, -1, 'WITHSCORES')
    if last[2] and tonumber(last[2]) == math.huge then
      local head = redis.call('ZRANGE', queue.base .. 'g:' .. last[1] .. ':p', 0, 0, 'WITHSCORES')
      if head[2] and tonumber(head[2]) == math.huge then
        local id = id_of(head[1])
        bury(queue, id, head[1], now_ms(), tonumber(redis.call('HGET', queue.attempts, id) or '0'),
          'due time ' .. head[2] .. ' in its group is not a whole number of milliseconds (written by something other '
          .. 'than delayqueue)')
      end
    end
  end
end
if ARGV[2] == 'mark-groups' or ARGV[2] == 'forget-limits' then
  if ARGV[2] == 'forget-limits' then
    -- and the claim counts: a queue without limits shows neither (QueueFlow.NONE once no hold remains); 'tat' stays,
    -- so a consumer with limits that comes back gets no fresh burst
    redis.call('HDEL', KEYS[11], 'limits', 'claims')
  end
  -- job-set marks left unforwarded (includes/sets.lua: their instance died between its settle and the forward)
  local stale = redis.call('ZRANGEBYSCORE', queue_keys(KEYS).base .. 'set-marks', '-inf', now_ms() - SET_MARK_SWEEP_MS,
    'LIMIT', 0, 1)
  return #stale
end
if ARGV[3] then return group_hold(queue_keys(KEYS), ARGV[3], now_ms() + tonumber(ARGV[2])) end
return flow_hold(KEYS[11], now_ms() + tonumber(ARGV[2]))
