-- Settle stage "apply": what each outcome does to a delivery that still holds its fence (includes/settle_ops.lua).
--   ack (A, a)        collected, then deleted for the whole batch at once (finish_acks)
--   retry (R)         back to delayed (or its group's set) in <delay>, capped just after its expiry, its error kept
--   hand back (H, L)  back at <due> (H) or in <delay> (L) under a new sequence number, the attempt given back
--   dead (D)          to the dead letters with its reason
--   K, E              ack, dead, and the record kept in the queue's history (includes/history.lua): the batch's
--                     records written at once, then trimmed to the count the op carries (finish_history)
-- A grouped message (includes/groups.lua) goes back to its group's set, and any settle of one frees its place
-- against its group's in-flight cap.
--- @include "settle_ops"
--- @include "groups"
--- @include "lifecycle"
--- @include "dead_letters"
--- @include "remember"
--- @include "history"
--- @include "sets"

-- The hand-backs that apply: their envelopes read with one HMGET, their new sequence numbers reserved with one INCRBY
-- (the envelopes renumbered are written with one HSET by finish_backs). The same delivery handed back twice in one
-- call applies once: the second is stale (applied too, it would put the message back under a second new member).
local function prepare_backs(s)
  s.back_envelopes, s.rewritten, s.prefix = {}, {}, nil
  if #s.backs == 0 then return end
  local back_ids, applying, seen = {}, {}, {}
  for _, i in ipairs(s.backs) do
    if fenced(s, i) then
      if seen[s.members[i]] then
        s.leases[i] = false
      else
        seen[s.members[i]] = true
        back_ids[#back_ids + 1] = s.ids[i]
        applying[#applying + 1] = i
      end
    end
  end
  if #back_ids > 0 then
    local read = redis.call('HMGET', s.keys.messages, unpack(back_ids))
    for k, i in ipairs(applying) do s.back_envelopes[i] = read[k] end
    s.seq = reserve_sequence(s.keys.sequence, #back_ids) - 1
  end
end

local function ack(s, i)
  s.acks[#s.acks + 1] = i
end

local function retry(s, i)
  local id, member = s.ids[i], s.members[i]
  local due = s.now + s.delays[i]
  local expiry = expiry_of(redis.call('HGET', s.keys.messages, id))
  if expiry and due > expiry then due = expiry + 1 end
  redis.call('ZREM', s.keys.inflight, member)
  before_write(s)
  pend(s.keys, member, due, s.now)
  redis.call('HSET', s.keys.errors, id, s.texts[i])
  due_back(s, due)
end

-- Back under a new member, so that the next delivery's member is not this one and this op sent again is stale. A
-- member out of step with its envelope (format.lua's stray) whose envelope names a live member (lifecycle.lua's
-- named_live: on this mismatch path only) goes back as it was, and the next claim drops it; one the claim handed out
-- as the message's only member is renumbered too, unless its shape (grouped or not) cannot be kept. Without an
-- envelope (deleted by hand) the claim drops the member.
local function hand_back(s, i)
  local id, member, envelope = s.ids[i], s.members[i], s.back_envelopes[i]
  local due = s.delays[i]
  if s.ops[i] == 'L' then
    due = s.now + due
    local expiry = expiry_of(envelope)
    if expiry and due > expiry then due = expiry + 1 end
  end
  redis.call('ZREM', s.keys.inflight, member)
  before_write(s)
  local back = member
  if envelope and (not stray(member, envelope) or not named_live(s.keys, id, envelope)) then
    s.seq = s.seq + 1
    local last = s.seq % 64
    if s.prefix == nil or last == 0 then s.prefix = string.sub(encode8(s.seq), 1, 7) end
    local fresh, renamed = renumber(id, member, envelope, s.seq, s.prefix .. string.sub(DIGITS64, last + 1, last + 1))
    if is_grouped(renamed) == is_grouped(member) then
      back = renamed
      s.rewritten[#s.rewritten + 1] = id
      s.rewritten[#s.rewritten + 1] = fresh
    end
  end
  pend(s.keys, back, due, s.now, member) -- a grouped one leaves its group's in-flight set under the old member
  local previous = tonumber(s.attempts_sent[i]) - 1
  if previous > 0 then
    redis.call('HSET', s.keys.attempts, id, string.format('%d', previous))
  else
    redis.call('HDEL', s.keys.attempts, id)
  end
  due_back(s, due)
end

local function dead(s, i)
  bury(s.keys, s.ids[i], s.members[i], s.now, s.attempts_sent[i], s.texts[i])
end

-- An ack or a dead letter whose record the queue keeps: the record is written with the others of the call by
-- finish_history
local function keep(s, i)
  if s.ops[i] == 'K' then ack(s, i) else dead(s, i) end
  if s.kept == nil then s.kept, s.hist_fields, s.hist_at = 0, {}, {} end
  local n = s.kept * 2
  s.hist_fields[n + 1], s.hist_fields[n + 2] = s.ids[i], s.records[i]
  s.hist_at[n + 1], s.hist_at[n + 2] = s.now, s.ids[i]
  s.keep = s.delays[i]
  s.kept = s.kept + 1
end

local APPLY = { A = ack, a = ack, R = retry, H = hand_back, L = hand_back, D = dead, K = keep, E = keep }

-- The records the call kept, in one write, then the history's count bound; the records it deleted, if any, end the
-- reply as ":<count>" after the flags (settle.lua), for the engine's listener
local function finish_history(s)
  if s.kept == nil then return end
  history_keep(s.keys, s.hist_fields, s.hist_at)
  if s.keep <= 0 then return end
  local trimmed = history_trim_count(s.keys, s.keep, s.kept)
  if trimmed > 0 then s.result[#s.result + 1] = ':' .. trimmed end
end

-- Applies every op that holds its fence; the reply's flag per op: 1 applied, 0 stale
local function apply_ops(s)
  for i = 1, #s.members do
    if fenced(s, i) then
      APPLY[s.ops[i]](s, i)
      s.result[i] = '1'
    else
      s.result[i] = '0'
    end
  end
end

-- The renumbered envelopes of the hand-backs, in one HSET
local function finish_backs(s)
  if #s.rewritten > 0 then redis.call('HSET', s.keys.messages, unpack(s.rewritten)) end
end

-- The acks of the batch, at once: what lifecycle.lua's forget() does, but for the delayed set (an acked delivery was
-- current, so its member is in flight, and no script leaves a member in both sets). Ids sent with a dedup window stay
-- taken for it ('A' acks only: one HMGET); a last error exists only after a retry, so only for attempt 2 or later.
-- The acks of a job set's members ("S<set id>" before them) leave one mark per set (includes/sets.lua), in one ZADD.
local function finish_acks(s)
  if #s.acks == 0 then return end
  local members, ids, windowed, retried, in_set, sets = {}, {}, {}, {}, {}, {}
  for _, i in ipairs(s.acks) do
    members[#members + 1] = s.members[i]
    ids[#ids + 1] = s.ids[i]
    local set = s.sets[i]
    if set then
      if not in_set[set] then
        in_set[set] = {}
        sets[#sets + 1] = set
      end
      in_set[set][#in_set[set] + 1] = s.ids[i]
    end
    if s.ops[i] == 'A' or s.ops[i] == 'K' then windowed[#windowed + 1] = s.ids[i] end
    if s.attempts_sent[i] ~= '1' then retried[#retried + 1] = s.ids[i] end
  end
  remember(s.keys, windowed)
  if #sets > 0 then
    local marks = {}
    for k, set in ipairs(sets) do marks[k] = 'A' .. set .. '\31' .. table.concat(in_set[set], '\31') end
    set_marks(s.keys, s.now, marks)
  end
  redis.call('ZREM', s.keys.inflight, unpack(members))
  redis.call('HDEL', s.keys.messages, unpack(ids))
  redis.call('HDEL', s.keys.attempts, unpack(ids))
  if #retried > 0 then redis.call('HDEL', s.keys.errors, unpack(retried)) end
  for _, member in ipairs(members) do
    if is_grouped(member) then group_forget(s.keys, member, s.now) end
  end
end
