-- Claim stages "candidates" and "admit": which due messages this claim may hand out.
-- Candidates are read in due order (delayed's due members, then, when the groups' marker is due, the groups whose
-- turn has come: groups.lua's group_candidates), at most the room the flow limits left; when delayed holds the
-- priorities' markers (includes/priorities.lua), the marked priorities' sets' due members too, and the candidates are
-- taken lowest `due - level * aging` first (by_priority). Then every candidate gets one
-- verdict, decided in one place (admit_verdict) from its member, its score and its envelope:
--   deliver   handed out (the lease stage puts it in flight)
--   corrupt   dead-lettered with its reason: a due time no script writes (in delayed or a group's set), or a
--             grouped-shape member that is its message's only member but names no group
--   regroup   a grouped member found due in delayed (a release before groups reaps an expired grouped lease back
--             there): moved to its group's set at its due time
--   orphan    dropped: a member without a message, a grouped-shape member beside the member its envelope names, or one
--             that names no group in a group's set or in flight
--   stray     dropped: another sequence number than its id's envelope while the member the envelope names is live
--             (format.lua's stray, lifecycle.lua's named_live: read only on a mismatch), as a member whose message
--             this claim just expired is
--   expired   past its expiry (format.lua's expiry_of, from the envelope just read): dead-lettered or deleted
-- The members that are not to be delivered keep their place in the batch with no envelope (false), so the lease stage
-- removes them from delayed with the rest in one ZREM.
--- @include "format"
--- @include "groups"
--- @include "lifecycle"
--- @include "dead_letters"
--- @include "housekeeping"
--- @include "remember"
--- @include "history"
--- @include "priorities"

-- Puts the candidates of both kinds (ungrouped from delayed, grouped from the groups, each group's in due order, the
-- runs not with each other) in due order, and keeps the first `limit`: by due time, then send order (format.lua's
-- send_rank). A merge of the runs while there are few, else one sort (n log n), so a claim with many groups out of
-- step stays bounded; no command. Runs only when a claim has candidates of both kinds.
local MERGE_RUNS = 8
local function in_due_order(members, ids, scores, limit)
  local n = #members
  local due = {}
  for i = 1, n do due[i] = tonumber(scores[i]) end
  local at, stop = { 1 }, {} -- the runs: maximal stretches already in order
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

-- A run of candidates of a queue with priorities (includes/priorities.lua): entries { member, id, score (the due time
-- as the reply writes it), level, rank = due - level * aging, home (the priority's set it was read from, or nil) }, in
-- claim order: lowest rank first, then the higher level, then send order (format.lua's send_rank).
local function before(x, y)
  if x.rank ~= y.rank then return x.rank < y.rank end
  if x.level ~= y.level then return x.level > y.level end
  return send_rank(x.member) < send_rank(y.member)
end

-- The first `limit` of two runs merged (each in claim order), and the first entry left out (nil when none)
local function merge_runs(a, b, limit)
  local out, i, j = {}, 1, 1
  while #out < limit and (a[i] or b[j]) do
    if b[j] == nil or (a[i] ~= nil and before(a[i], b[j])) then
      out[#out + 1] = a[i]
      i = i + 1
    else
      out[#out + 1] = b[j]
      j = j + 1
    end
  end
  local left = a[i]
  if left == nil or (b[j] ~= nil and before(b[j], left)) then left = b[j] end
  return out, left
end

-- The priorities' markers, when delayed's due read starts at -inf (where they are scored: no command otherwise):
-- the marked levels, and delayed's due members read again past them. A member scored -inf that is no marker
-- (written by hand) is corrupt.
local function read_marks(c, room)
  local levels = {}
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', c.keys.delayed, '-inf', '-inf')) do
    if is_priority_mark(member) then
      levels[#levels + 1] = string.sub(member, 2, 2)
    else
      bury_bad_score(c, member, '-inf')
      redis.call('ZREM', c.keys.delayed, member) -- whatever its shape says, it was read from delayed
    end
  end
  return levels, redis.call('ZRANGEBYSCORE', c.keys.delayed, '(-inf', c.now, 'WITHSCORES', 'LIMIT', 0, room)
end

-- The due candidates of a queue with priorities, the best `room` of them in claim order (merge_runs): the candidates
-- read so far (delayed's and the groups', in due order: the DEFAULT_LEVEL run), then each marked priority's set from
-- the highest down, each read only as far as it can beat the room-th candidate so far (a member of level L due after
-- that one's rank + L x aging cannot), at most `room` of it: so a backlog that aging does not mix costs its lower
-- priorities an empty read each. A marker whose set is gone goes (one ZCARD, for a read that found nothing: ZCARD
-- rather than EXISTS, which the smallest ACL rule set of docs/internals/redis-layout.md does not allow).
-- c.prioritized: the lease stage takes members from the sets they were read from (batch.homes); c.levels: the levels
-- still marked, whose heads the reply's next event reads; c.due_left: a due candidate left out, when one was (the reply
-- then names it as the next event, due now, and reads no head).
local function read_priorities(c, batch, levels, room)
  local members, ids, scores = batch.members, batch.ids, batch.scores
  local aging = c.aging
  local best = {}
  for i = 1, math.min(#members, room) do
    local due = tonumber(scores[i])
    best[i] = { member = members[i], id = ids[i], score = scores[i], level = DEFAULT_LEVEL,
      rank = due - DEFAULT_LEVEL * aging, due = due }
  end
  local left = members[room + 1] and tonumber(scores[room + 1]) or nil
  table.sort(levels, function(x, y) return x > y end)
  c.prioritized, c.levels = true, {}
  for _, digit in ipairs(levels) do
    local level = tonumber(digit)
    local key = c.keys.base .. 'priority:' .. digit
    local upto = c.now
    if #best >= room and best[room].rank + level * aging < upto then upto = best[room].rank + level * aging end
    local due = redis.call('ZRANGEBYSCORE', key, '-inf', string.format('%d', upto), 'WITHSCORES', 'LIMIT', 0, room)
    if #due == 0 and redis.call('ZCARD', key) == 0 then
      redis.call('ZREM', c.keys.delayed, '^' .. digit)
    else
      c.levels[#c.levels + 1] = digit
    end
    local run = {}
    for k = 1, #due, 2 do
      if bad_score(due[k + 1]) then
        bury_bad_score(c, due[k], due[k + 1])
      else
        local at = tonumber(due[k + 1])
        run[#run + 1] = { member = due[k], level = level, rank = at - level * aging, due = at, home = key }
      end
    end
    if #run > 0 then
      local out
      best, out = merge_runs(best, run, room)
      if out and (left == nil or out.due < left) then left = out.due end
    end
  end
  batch.homes = {}
  for i = 1, #best do
    local e = best[i]
    members[i], ids[i] = e.member, e.id or id_of(e.member)
    scores[i] = e.score or string.format('%d', e.due)
    if e.home then batch.homes[e.member] = e.home end
  end
  for i = #members, #best + 1, -1 do members[i], ids[i], scores[i] = nil, nil, nil end
  c.due_left = left
end

-- The verdict on a member read due from delayed, before its envelope is read: 'corrupt' (a bad score), 'marker' (the
-- groups' marker), 'misplaced' (another grouped-shape member: judged by its envelope, admit_misplaced), or 'candidate'
local function screen(member, score)
  if bad_score(score) then return 'corrupt' end
  if is_grouped(member) then
    if member == GROUPS_MARK then return 'marker' end
    return 'misplaced'
  end
  return 'candidate'
end

-- A grouped-shape member found due in delayed (no script of this release writes one there): 'regroup' when its
-- message's envelope names it, 'corrupt' when it is its message's only member but names no group, else 'orphan'.
-- One HGET, on this rare path only.
local function admit_misplaced(c, member, score)
  local id = id_of(member)
  local envelope = redis.call('HGET', c.keys.messages, id)
  if envelope and member_of(id, envelope) == member then
    redis.call('ZREM', c.keys.delayed, member)
    group_pend(c.keys, member, tonumber(score), c.now)
  elseif envelope and not named_live(c.keys, id, envelope) then
    bury(c.keys, id, member, c.now, tonumber(redis.call('HGET', c.keys.attempts, id) or '0'),
      'corrupt member: a grouped member that names no group (written by something other than delayqueue)')
  else
    redis.call('ZREM', c.keys.delayed, member)
  end
end

-- The candidates: at most `room` due members (variadic reads: a few commands per batch, not four per message)
local function read_candidates(c, room)
  local batch = { members = {}, ids = {}, scores = {}, envelopes = {}, grouped = false }
  if room <= 0 then return batch end
  local members, ids, scores = batch.members, batch.ids, batch.scores
  local due = redis.call('ZRANGEBYSCORE', c.keys.delayed, '-inf', c.now, 'WITHSCORES', 'LIMIT', 0, room)
  local levels = nil
  if due[2] == '-inf' then levels, due = read_marks(c, room) end
  for k = 1, #due, 2 do
    local verdict = screen(due[k], due[k + 1])
    if verdict == 'candidate' then
      members[#members + 1] = due[k]
      ids[#ids + 1] = id_of(due[k])
      scores[#scores + 1] = string.format('%d', tonumber(due[k + 1]))
    elseif verdict == 'corrupt' then
      bury_bad_score(c, due[k], due[k + 1])
    else
      if verdict == 'misplaced' then admit_misplaced(c, due[k], due[k + 1]) end
      batch.grouped = true -- fill the claim from the groups too
    end
  end
  if batch.grouped then
    batch.glimits = group_limits(c.group and c.group[1], c.group and c.group[2], c.group and c.group[3])
    local ungrouped = #members
    -- the groups may fill the whole claim: then the earliest due of both kinds are taken, so an ungrouped member due
    -- after a group's is not claimed before it, nor a grouped one cut first by the byte budget
    batch.visits = group_candidates(c.keys, batch.glimits, room, c.now, c.now_us, members, ids, scores)
    -- a grouped member scored as no script writes (fractional, -inf: by hand or another tool) is corrupt, as in delayed
    local kept = ungrouped
    for i = ungrouped + 1, #members do
      if bad_score(scores[i]) then
        bury_bad_score(c, members[i], scores[i])
      else
        kept = kept + 1
        members[kept], ids[kept], scores[kept] = members[i], ids[i], string.format('%d', tonumber(scores[i]))
      end
    end
    for i = #members, kept + 1, -1 do members[i], ids[i], scores[i] = nil, nil, nil end
    if ungrouped > 0 and #members > ungrouped then in_due_order(members, ids, scores, room) end
  end
  if levels then read_priorities(c, batch, levels, room) end
  return batch
end

-- The verdict on a candidate once its envelope is read (false: none). `gone` holds the ids this claim just expired.
local function admit_verdict(c, member, id, envelope, gone)
  if not envelope then
    if is_grouped(member) then return 'orphan' end
    return 'gone' -- leaves delayed with the batch
  end
  if (gone and gone[id]) or (stray(member, envelope) and named_live(c.keys, id, envelope)) then return 'stray' end
  local expiry = expiry_of(envelope)
  if expiry and expiry < c.now then return 'expired' end
  return 'deliver'
end

-- Reads the candidates' envelopes (one HMGET) and applies each verdict; a candidate not delivered is left with no
-- envelope (false)
local function admit(c, batch)
  local members, ids = batch.members, batch.ids
  if #members == 0 then return end
  local keys = c.keys
  local envelopes = redis.call('HMGET', keys.messages, unpack(ids))
  local gone = nil
  for i = 1, #members do
    local member, id = members[i], ids[i]
    local verdict = admit_verdict(c, member, id, envelopes[i], gone)
    if verdict == 'stray' then
      -- out of its group's set too (group_candidates took only the group's own), and off the pending count
      if is_grouped(member) then
        local base = group_base(keys)
        if redis.call('ZREM', base .. 'g:' .. group_of(member) .. ':p', member) == 1 then
          group_count(base .. 'group-flow', -1)
        end
      end
    elseif verdict == 'orphan' then
      group_forget(keys, member, c.now)
    elseif verdict == 'expired' then
      if not gone then gone = {} end
      gone[id] = true
      history_drop_running(c, id)
      if c.drop_expired then
        c.expiry_dropped = c.expiry_dropped + 1
        remember(keys, { id })
        set_mark(keys, c.now, 'D', id, envelopes[i])
        forget(keys, id, member)
      else
        c.expiry_dead = c.expiry_dead + 1
        bury(keys, id, member, c.now, tonumber(redis.call('HGET', keys.attempts, id) or '0'),
          'expired: not delivered by its expiry (' .. string.format('%d', expiry_of(envelopes[i])) .. ' ms since the '
          .. 'epoch, Redis clock)')
      end
    end
    if verdict ~= 'deliver' then envelopes[i] = false end
  end
  batch.envelopes = envelopes
end

-- The byte budget: the first members whose envelopes fit (at least one); the rest stay in delayed, due
local function fit_budget(c, batch)
  local members = batch.members
  local bytes, taken = 0, #members
  for i = 1, #members do
    local size = batch.envelopes[i] and #batch.envelopes[i] or 0
    if i > 1 and bytes + size > c.bytes then
      taken = i - 1
      break
    end
    bytes = bytes + size
  end
  for i = #members, taken + 1, -1 do
    members[i], batch.ids[i], batch.envelopes[i] = nil, nil, nil
  end
end
