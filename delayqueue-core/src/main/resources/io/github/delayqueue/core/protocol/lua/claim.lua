-- Claims due messages under a lease, within the flow limits, after returning expired leases and trimming dead letters.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel (unused), 2 how many to claim, 3 lease ms, 4 max attempts, 5 how many expired leases to reap,
--       6 dead-letter retention ms, 7 most dead letters kept, 8 byte budget: envelopes are claimed while their
--       bytes stay within it (at least one is, whatever its size), so one reply cannot hold 100 x 1 MiB,
--       9-12 flow limits (flow.lua's flow_open: permit interval us, tolerance us, cap in flight, gather us;
--       0 0 0 0: none), 13 what to do with an expired message (includes/format.lua): 'dead' to the dead letters,
--       'drop' deleted, 14-16 group limits (includes/groups.lua's group_limits: permit interval us, tolerance us,
--       cap in flight, per group; absent: none)
-- First deletes dead letters past their retention or beyond the count (at most DEAD_TRIM per call: a claim
-- runs at least once per poll interval, so a backlog of old dead letters goes within seconds, and when none
-- is due for deletion this costs one ZRANGEBYSCORE and one ZCARD), then returns expired leases to the delayed
-- set (or to the dead letters when attempts are used up), then, unless the queue is paused, moves up to ARGV[2]
-- due messages in flight.
-- Returns: now in microseconds (the consumer sleeps until the next event to the microsecond, not to the
--          millisecond below it), next event time in ms ('' when none: the earliest due time or lease deadline),
--          what this call did besides claiming ('' when nothing, else "<expired leases put back>:<expired
--          leases dead-lettered>:<bad due times dead-lettered>:<expired dead-lettered>:<expired dropped>", for the
--          engine's listener), the flow limit that
--          held due messages back ('' when none, else R rate limit, F cap in flight, H hold: the next event is
--          then when the limit lets them go, or none for F, which a settle wakes), then pairs:
--          "<attempt>:<due time>:<member>" (the member last: an id may hold ':'), envelope.
-- Two reply items per message rather than four: the client decodes every item into a string of its own.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "wake"
--- @include "dead_letters"
--- @include "flow"
--- @include "remember"
--- @include "groups"
local queue = queue_keys(KEYS)
local now, now_us = clock()
local limit = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local max_attempts = tonumber(ARGV[4])

local DEAD_TRIM = 100
local expired_dead = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[6]), 'LIMIT', 0, DEAD_TRIM)
delete_dead(queue, expired_dead)
local trim = math.min(redis.call('ZCARD', KEYS[6]) - tonumber(ARGV[7]), DEAD_TRIM - #expired_dead)
if trim > 0 then
  delete_dead(queue, redis.call('ZRANGE', KEYS[6], 0, trim - 1))
end

local redelivered, expired_buried, bad_buried, expiry_dead, expiry_dropped = 0, 0, 0, 0, 0
local drop_expired = ARGV[13] == 'drop'
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, tonumber(ARGV[5]))
for _, member in ipairs(expired) do
  local id = id_of(member)
  local attempts = tonumber(redis.call('HGET', KEYS[4], id) or '0')
  if is_grouped(member) and group_of(member) == nil then
    -- a '|' member that names no group (includes/groups.lua's group_of: written by hand or corrupted) was never
    -- handed out: an orphan, dropped as the claim drops a member without a message (no dead letter, no count)
    redis.call('ZREM', KEYS[3], member)
  elseif attempts >= max_attempts then
    expired_buried = expired_buried + 1
    bury(queue, id, member, now, attempts, 'lease expired on attempt ' .. attempts .. ' (consumer died or handler hung)')
  else
    redelivered = redelivered + 1
    redis.call('ZREM', KEYS[3], member)
    if is_grouped(member) then group_pend(queue, member, now, now) else redis.call('ZADD', KEYS[2], now, member) end
  end
end

-- A score we never write (by hand or by another tool): not a whole number of milliseconds, infinite, or
-- beyond what a Lua number holds exactly. Such a member goes to the dead letters with its reason rather
-- than stalling the batch it was claimed in (+inf is never due: swept here, a few per call, for the same end).
local MAX_SCORE = 9007199254740991
local function bad_score(score)
  local n = tonumber(score)
  return n == nil or n ~= math.floor(n) or n > MAX_SCORE or n < -MAX_SCORE
end
local function bury_bad_score(member, score)
  bad_buried = bad_buried + 1
  local id = id_of(member)
  local attempts = tonumber(redis.call('HGET', KEYS[4], id) or '0')
  bury(queue, id, member, now, attempts, 'due time ' .. score .. ' in the delayed set is not a whole number of '
    .. 'milliseconds (written by something other than delayqueue)')
end
local too_late = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. MAX_SCORE, '+inf', 'WITHSCORES', 'LIMIT', 0, 10)
for k = 1, #too_late, 2 do bury_bad_score(too_late[k], too_late[k + 1]) end

-- What this call did besides claiming, for the engine's listener (see the header)
local out = { string.format('%d', now_us), '', '', '' }
local function report()
  if redelivered + expired_buried + bad_buried + expiry_dead + expiry_dropped > 0 then
    out[3] = redelivered .. ':' .. expired_buried .. ':' .. bad_buried .. ':' .. expiry_dead .. ':' .. expiry_dropped
  end
  return out
end
-- A paused queue (pause.lua) hands nothing out, and names no next event: its consumers sleep their longest
-- poll interval (resume publishes a wake-up). Expired leases above are still returned and dead letters trimmed.
if redis.call('HEXISTS', KEYS[10], 'since') == 1 then return report() end
-- Puts the claim's candidates of both kinds (ungrouped from delayed, grouped from the groups, each group's in due
-- order, the runs not with each other) in due order, and keeps the first `limit`: by due time, then by send order
-- (the sequence number both member shapes carry after their first byte; a format-1 member first, as delayed orders
-- it). A merge of the runs (about `limit` x the runs' count compares, inline) while there are few runs, else one
-- sort (n log n), so a claim with many groups out of step stays bounded; no command. Runs only when a claim has
-- candidates of both kinds.
local MERGE_RUNS = 8
local function in_due_order(members, ids, scores, limit)
  local n = #members
  local due = {}
  for i = 1, n do due[i] = tonumber(scores[i]) end
  -- the runs: maximal stretches already in order
  local at, stop = { 1 }, {}
  for i = 2, n do
    if due[i] < due[i - 1] or (due[i] == due[i - 1] and send_rank(members[i]) < send_rank(members[i - 1])) then
      stop[#at] = i - 1
      at[#at + 1] = i
    end
  end
  stop[#at] = n
  local take, order = math.min(limit, n), {}
  if #at > MERGE_RUNS then
    for i = 1, n do order[i] = i end
    table.sort(order, function(x, y)
      if due[x] ~= due[y] then return due[x] < due[y] end
      return send_rank(members[x]) < send_rank(members[y])
    end)
  else
    for k = 1, take do
      local best = nil
      for r = 1, #at do
        local i = at[r]
        if i <= stop[r] then
          if best == nil then
            best = r
          else
            local j = at[best]
            if due[i] < due[j] or (due[i] == due[j] and send_rank(members[i]) < send_rank(members[j])) then best = r end
          end
        end
      end
      order[k] = at[best]
      at[best] = at[best] + 1
    end
  end
  local m, d, c = {}, {}, {}
  for k = 1, take do
    local i = order[k]
    m[k], d[k], c[k] = members[i], ids[i], scores[i]
  end
  for i = n, 1, -1 do members[i], ids[i], scores[i] = m[i], d[i], c[i] end
end

local flow = flow_open(KEYS[11], queue.inflight, ARGV[9], ARGV[10], ARGV[11], ARGV[12], now, now_us)
if limit > 0 then limit = flow_allow(flow, limit) end
if limit > 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
  -- variadic ZREM / HMGET / ZADD: a few commands per batch rather than four per message
  local members, ids, scores = {}, {}, {}
  local grouped = false -- the groups' marker was due (includes/groups.lua): fill the rest of the claim from them
  for k = 1, #due, 2 do
    if bad_score(due[k + 1]) then
      bury_bad_score(due[k], due[k + 1])
    elseif is_grouped(due[k]) then
      -- the groups' marker; any other '|' member (no script of this release writes a grouped member in delayed; a
      -- release before groups reaps an expired grouped lease back here, or it was written by hand) goes to its group's
      -- set at its due time when its message's envelope names it; a copy beside the member the envelope names, or a
      -- member without a message, is dropped as an orphan; a member that is its message's only one but names no group
      -- (group_of) is dead-lettered as corrupt rather than stranding the message. One HGET, on this rare path only.
      if due[k] ~= GROUPS_MARK then
        local member = due[k]
        local id = id_of(member)
        local envelope = redis.call('HGET', KEYS[1], id)
        if envelope and member_of(id, envelope) == member then
          redis.call('ZREM', KEYS[2], member)
          group_pend(queue, member, tonumber(due[k + 1]), now)
        elseif envelope and not named_live(queue, id, envelope) then
          bury(queue, id, member, now, tonumber(redis.call('HGET', KEYS[4], id) or '0'),
            'corrupt member: a grouped member that names no group (written by something other than delayqueue)')
        else
          redis.call('ZREM', KEYS[2], member)
        end
      end
      grouped = true
    else
      members[#members + 1] = due[k]
      ids[#ids + 1] = id_of(due[k])
      scores[#scores + 1] = string.format('%d', tonumber(due[k + 1]))
    end
  end
  local glimits, visits = nil, nil
  if grouped then
    glimits = group_limits(ARGV[14], ARGV[15], ARGV[16])
    local ungrouped = #members
    -- the groups may fill the whole claim: then the earliest due of both kinds are taken (in_due_order), so an
    -- ungrouped member due after a group's is not claimed before it, nor a grouped one cut first by the byte budget
    visits = group_candidates(queue, glimits, limit, now, now_us, members, ids, scores)
    if ungrouped > 0 and #members > ungrouped then in_due_order(members, ids, scores, limit) end
  end
  if #members > 0 then
    local envelopes = redis.call('HMGET', KEYS[1], unpack(ids))
    local gone = nil -- the ids whose message this loop expired (below)
    -- a message past its expiry is never handed out: read from the envelope just fetched (no command for messages
    -- without one), it goes to the dead letters or is deleted, and its slot in the reply stays free (false)
    for i = 1, #members do
      -- a stray member (includes/format.lua's stray: another sequence number than its id's envelope, so not that
      -- message's member, while the member the envelope names is live: lifecycle.lua's named_live, read only on a
      -- mismatch) is not delivered: it would hand out the message at the stray's due time, early, or twice.
      -- It leaves delayed below, or its group's set here, and then comes off group-flow's pending count as
      -- group_forget does (a stray in a group's set was counted: the expired-lease path above puts one back with
      -- group_pend, as an older release's send did; one put there by hand was not, and the count, too low, stops at
      -- 0); the real member is untouched. One compare of two 8-byte substrings per message, no command.
      -- A member whose id's message this loop has just expired (`gone`: a stray due after it, which named_live no
      -- longer finds live) is dropped the same way: the envelope read above is deleted, the message counted once.
      if envelopes[i] and ((gone and gone[ids[i]])
          or (stray(members[i], envelopes[i]) and named_live(queue, ids[i], envelopes[i]))) then
        envelopes[i] = false
        if is_grouped(members[i]) then
          local base = group_base(queue)
          if redis.call('ZREM', base .. 'g:' .. group_of(members[i]) .. ':p', members[i]) == 1 then -- a group: group_candidates took only its own
            group_count(base .. 'group-flow', -1)
          end
        end
      -- a grouped member without an envelope (deleted by hand, or cancelled by an older release) would stay at its
      -- group's head for good and keep the group due: it leaves the group (an ungrouped one leaves delayed below)
      elseif not envelopes[i] and is_grouped(members[i]) then
        group_forget(queue, members[i], now)
      end
      local expiry = expiry_of(envelopes[i])
      if expiry and expiry < now then
        if not gone then gone = {} end
        gone[ids[i]] = true
        local attempts = tonumber(redis.call('HGET', KEYS[4], ids[i]) or '0')
        if drop_expired then
          expiry_dropped = expiry_dropped + 1
          remember(queue, { ids[i] })
          forget(queue, ids[i], members[i])
        else
          expiry_dead = expiry_dead + 1
          bury(queue, ids[i], members[i], now, attempts, 'expired: not delivered by its expiry ('
            .. string.format('%d', expiry) .. ' ms since the epoch, Redis clock)')
        end
        envelopes[i] = false
      end
    end
    -- the byte budget: the first members whose envelopes fit; the rest stay in the delayed set, due
    local budget, bytes, taken = tonumber(ARGV[8]), 0, #members
    for i = 1, #members do
      local size = envelopes[i] and #envelopes[i] or 0
      if i > 1 and bytes + size > budget then
        taken = i - 1
        break
      end
      bytes = bytes + size
    end
    if taken < #members then
      for i = #members, taken + 1, -1 do
        members[i] = nil
        ids[i] = nil
        envelopes[i] = nil
      end
    end
    redis.call('ZREM', KEYS[2], unpack(members))
    local deadline = string.format('%d', now + lease)
    local live = {}
    local live_ids = {}
    for i = 1, #members do
      if envelopes[i] then
        live[#live + 1] = i
        live_ids[#live_ids + 1] = ids[i]
      end
    end
    if #live > 0 then
      -- attempts + 1 for the whole batch: one HMGET and one variadic HSET instead of a HINCRBY per message
      local previous = redis.call('HMGET', KEYS[4], unpack(live_ids))
      local leases, counts = {}, {}
      for k, i in ipairs(live) do
        local attempt = string.format('%d', (tonumber(previous[k]) or 0) + 1)
        counts[#counts + 1] = ids[i]
        counts[#counts + 1] = attempt
        leases[#leases + 1] = deadline
        leases[#leases + 1] = members[i]
        out[#out + 1] = attempt .. ':' .. scores[i] .. ':' .. members[i]
        out[#out + 1] = envelopes[i]
      end
      redis.call('HSET', KEYS[4], unpack(counts))
      redis.call('ZADD', KEYS[3], unpack(leases))
    end
    if grouped then
      local taken = {}
      for _, i in ipairs(live) do taken[#taken + 1] = members[i] end
      group_claimed(queue, glimits, visits, taken, now)
    end
    flow_took(flow, #live)
  end
end

local next_due, held = flow_next(flow, head_score(KEYS[2]))
out[4] = held
local next_lease = head_score(KEYS[3])
local next_event = next_due
if next_lease ~= nil and (next_event == nil or next_lease < next_event) then next_event = next_lease end
if next_event ~= nil then out[2] = string.format('%d', next_event) end
return report()
