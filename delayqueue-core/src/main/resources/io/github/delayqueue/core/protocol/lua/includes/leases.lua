-- Claim stages "return expired leases" and "lease". A lease is the member's score in the in-flight set (its deadline,
-- ms, Redis clock); the attempts hash counts deliveries and is the fencing token every settle checks.
--- @include "format"
--- @include "groups"
--- @include "dead_letters"
--- @include "flow"
--- @include "history"

-- Returns up to `reap` expired leases: to delayed (or their group's set) due now, or to the dead letters when their
-- attempts are used up. A grouped-shape member that names no group (format.lua's group_of: written by hand or
-- corrupted) was never handed out: an orphan, dropped as a member without a message is (no dead letter, no count).
local function return_expired_leases(c)
  local keys = c.keys
  local expired = redis.call('ZRANGEBYSCORE', keys.inflight, '-inf', c.now, 'LIMIT', 0, c.reap)
  for _, member in ipairs(expired) do
    local id = id_of(member)
    local attempts = tonumber(redis.call('HGET', keys.attempts, id) or '0')
    if is_grouped(member) and group_of(member) == nil then
      redis.call('ZREM', keys.inflight, member)
    elseif attempts >= c.attempts then
      c.lease_dead = c.lease_dead + 1
      history_drop_running(c, id)
      bury(keys, id, member, c.now, attempts, 'lease expired on attempt ' .. attempts .. ' (consumer died or handler hung)')
    else
      c.redelivered = c.redelivered + 1
      redis.call('ZREM', keys.inflight, member)
      pend(keys, member, c.now, c.now)
    end
  end
end

-- Puts the batch's admitted messages in flight: every member read leaves delayed (or its priority's set) (those not admitted were dropped or
-- buried), the admitted get attempt + 1 (one HMGET and one variadic HSET for the batch) and a lease until now + lease,
-- and go into the reply as "<attempt>:<due time>:<member>", envelope; grouped ones leave their group's pending set and
-- spend its permits (groups.lua's group_claimed); the queue-wide limits count them (flow.lua's flow_took).
local function grant_leases(c, batch)
  local keys, members = c.keys, batch.members
  if #members == 0 then return end
  if c.prioritized then -- a queue with priorities: each member from the set it was read from, one ZREM per set
    local homes = {}
    for _, member in ipairs(members) do
      local key = batch.homes[member] or keys.delayed
      if not homes[key] then homes[key] = {} end
      homes[key][#homes[key] + 1] = member
    end
    for key, list in pairs(homes) do redis.call('ZREM', key, unpack(list)) end
  else
    redis.call('ZREM', keys.delayed, unpack(members))
  end
  local live, live_ids = {}, {}
  for i = 1, #members do
    if batch.envelopes[i] then
      live[#live + 1] = i
      live_ids[#live_ids + 1] = batch.ids[i]
    end
  end
  if #live > 0 then
    local deadline = string.format('%d', c.now + c.lease)
    local previous = redis.call('HMGET', keys.attempts, unpack(live_ids))
    local leases, counts, out = {}, {}, c.out
    for k, i in ipairs(live) do
      local attempt = string.format('%d', (tonumber(previous[k]) or 0) + 1)
      counts[#counts + 1] = batch.ids[i]
      counts[#counts + 1] = attempt
      leases[#leases + 1] = deadline
      leases[#leases + 1] = members[i]
      out[#out + 1] = attempt .. ':' .. batch.scores[i] .. ':' .. members[i]
      out[#out + 1] = batch.envelopes[i]
    end
    redis.call('HSET', keys.attempts, unpack(counts))
    redis.call('ZADD', keys.inflight, unpack(leases))
  end
  if batch.grouped then
    local taken = {}
    for _, i in ipairs(live) do taken[#taken + 1] = members[i] end
    group_claimed(keys, batch.glimits, batch.visits, taken, c.now)
  end
  flow_took(c.flow, #live)
end
