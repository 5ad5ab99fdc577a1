-- The claim's state, shared by its stages (claim.lua): the options it was given, the Redis clock it read, what it did
-- besides claiming, and its reply. The options travel as one JSON object (ARGV[1], built by QueueOps.claim):
--   n        how many to claim
--   lease    lease ms
--   attempts max attempts (a claim of the last one's lease, expired, goes to the dead letters)
--   reap     how many expired leases to return per call
--   dead_ms  dead-letter retention ms;  dead_max  most dead letters kept
--   bytes    byte budget: envelopes are claimed while their bytes stay within it (at least one is, whatever its size)
--   flow     the queue-wide limits as flow.lua's flow_open takes them: [interval us, tolerance us, cap, gather us], as
--            strings (recorded as given, for readers); absent: none
--   group    the per-group limits as groups.lua's group_limits takes them: [interval us, tolerance us, cap]; absent: none
--   expired  'drop' deletes a message past its expiry, else it goes to the dead letters
--   house    true: run the housekeeping stage (includes/housekeeping.lua) in this call
--   hist_ms  the queue's history keeps records this long (includes/history.lua); absent or 0: no age bound
--   aging    ms a message's priority (includes/priorities.lua) counts for, per level; -1 strict priority; absent:
--            DEFAULT_AGING_MS
--   hist_inst  the consumer keeps the history (its instance): a message this claim dead-letters or drops without a
--            settle has its running record deleted (history.lua's history_drop_running); absent: nothing of the history
--- @include "clock"
--- @include "keys"
--- @include "flow"
--- @include "wake"
--- @include "priorities"

local DEFAULT_AGING_MS = 60000
local STRICT_AGING_MS = 1e13 -- over 300 years a level: no due time of a backlog is that far apart

local function claim_open(keys, options)
  local o = cjson.decode(options)
  local now, now_us = clock()
  local queue = queue_keys(keys)
  local flow = o.flow or { '0', '0', '0', '0' }
  return { keys = queue, now = now, now_us = now_us, limit = o.n, lease = o.lease, attempts = o.attempts,
    reap = o.reap, dead_ms = o.dead_ms, dead_max = o.dead_max, bytes = o.bytes, drop_expired = o.expired == 'drop',
    group = o.group, house = o.house, aging = (o.aging == -1 and STRICT_AGING_MS) or o.aging or DEFAULT_AGING_MS, hist_ms = o.hist_ms or 0, hist_inst = o.hist_inst,
    flow = flow_open(keys[11], queue.inflight, flow[1], flow[2], flow[3], flow[4], now, now_us),
    -- what this call did besides claiming, for the engine's listener
    redelivered = 0, lease_dead = 0, bad_dead = 0, expiry_dead = 0, expiry_dropped = 0, dead_trimmed = 0,
    out = { string.format('%d', now_us), '', '', '' } }
end

-- Whether the queue is paused (pause.lua): a paused queue hands nothing out and names no next event, and the reply
-- says it is paused (its consumers sleep until resume's wake-up, or until a turn at checking the queue finds it
-- resumed)
local function claim_paused(c)
  return redis.call('HEXISTS', c.keys.paused, 'since') == 1
end

-- The reply (claim.lua's header), with the next event unless `paused`: the head of delayed or the time a limit lets
-- it go, or the earliest lease deadline
local function claim_reply(c, paused)
  if paused then
    c.out[4] = 'P'
  else
    local next_due, held = flow_next(c.flow, earliest_pending(c.keys, c.levels, c.due_left))
    c.out[4] = held
    local next_lease = head_score(c.keys.inflight)
    local next_event = next_due
    if next_lease ~= nil and (next_event == nil or next_lease < next_event) then next_event = next_lease end
    if next_event ~= nil then c.out[2] = string.format('%d', next_event) end
  end
  local hist_trimmed = c.hist_trimmed or 0 -- set by the housekeeping stage, when it ran on a queue with an age bound
  if c.redelivered + c.lease_dead + c.bad_dead + c.expiry_dead + c.expiry_dropped + c.dead_trimmed + hist_trimmed > 0 then
    c.out[3] = c.redelivered .. ':' .. c.lease_dead .. ':' .. c.bad_dead .. ':' .. c.expiry_dead .. ':' .. c.expiry_dropped
      .. ':' .. c.dead_trimmed .. ':' .. hist_trimmed
  end
  return c.out
end
