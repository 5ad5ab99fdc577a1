-- Settles finished deliveries in one round trip.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua): a claim waiting for
--       the cap on messages in flight is woken
-- ARGV: 1 wake channel, then one entry per op (member last: it is the only part that may hold ':'):
--   "A<attempt>:<member>"                  ack: the message is done and deleted
--   "a<attempt>:<member>"                  ack of a delivery whose envelope carries no dedup window (the engine
--                                           read it from the envelope it claimed): its id is not looked up in windows
--   "R<attempt>:<delay ms>:<member>", text  retry: back to the delayed set in <delay ms>, text its last error
--   "D<attempt>:<member>", text             dead: to the dead letters with text as the reason
--   "H<attempt>:<due ms>:<member>"           hand back: never run (the handler executor rejected it), so back
--                                           to the delayed set at its due time and the attempt not counted
--   "L<attempt>:<delay ms>:<member>"         later: the handler asked for it again in <delay ms>; not a failure,
--                                           so the attempt is not counted and no error is recorded
--   H and L give the attempt back, so the next claim is attempt <attempt> again: they put the message back under a
--   new sequence number (its envelope rewritten, includes/format.lua's renumbered), so that the next delivery's
--   member is not this one, and this op sent again (its reply lost: the Settler resends a failed batch, Redisson a
--   command whose reply did not come) is stale rather than taking that delivery's lease. The price: one HMGET of
--   their envelopes, one INCRBY and one HSET per call (no more command per op: an L read its envelope before, one
--   HGET per op), the envelopes copied in Lua, and the message's place among messages due at the same millisecond is
--   that of a send at the hand-back (format 2; one left in format 1 keeps its format and its place before them).
--   The same H or L twice in one call applies once. A member out of step with its envelope (includes/format.lua's
--   stray: a hand edit or an older release's leftover) is renumbered too when the claim handed it out as the message's
--   only member (lifecycle.lua's named_live false: up to two ZSCOREs, on that mismatch path only), its shape (grouped
--   or not) kept; it goes back as it was when the envelope names a live member (the next claim drops it), or when its
--   shape cannot be kept (a grouped member beside a format-1 envelope, an ungrouped format-1 member beside a format-2
--   envelope naming a group: there a resent H or L may still take the next delivery's lease).
-- Returns: one string with a flag character per op: 1 applied, 0 stale (lease lost to a newer delivery, or
--          message gone). One reply of N bytes rather than N integer replies, each decoded and boxed by the client.
-- An ack is one argument rather than five: most of a burst's settle cost was per-argument work
-- (client encoding, protocol parsing, Lua strings), not the Redis commands.
-- Every op is fenced: it applies only if the delivery is still the current one.
-- An ack or dead letter of a message sent with a dedup window remembers its id for the window (includes/remember.lua).
-- A retry or later (R, L) due after the message's expiry (includes/format.lua) is not run: the message goes back to
-- the delayed set just after its expiry, where the next claim expires it by the queue's policy (a retry reads its
-- envelope with one HGET per op; a later reads it from the call's HMGET of the H and L envelopes, above; acks and
-- dead letters read nothing more). A grouped message (includes/groups.lua) goes back
-- to its group's set, and any settle of one frees its place against its group's in-flight cap.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "wake"
--- @include "dead_letters"
--- @include "flow"
--- @include "remember"
--- @include "groups"
--- @include "lifecycle"
local queue = queue_keys(KEYS)
local now = now_ms()
local old_head, head_read = nil, false -- the delayed head before this call's writes: read at the first (R, H, L)
local earliest = nil
local result = {}
-- The fences of the whole batch are read with two variadic commands (ZMSCORE, HMGET), and acks are
-- deleted with variadic commands at the end: a batch holds at most one current delivery per id and
-- every op touches only its own id, so reading the fences up front is the same as reading them one by one.
local ops, attempts_sent, delays, texts, members, ids = {}, {}, {}, {}, {}, {}
local backs = {} -- the H and L ops (see the header), by position: nothing more for a batch without one
local j = 2
while j <= #ARGV do
  local entry = ARGV[j]
  local op = string.sub(entry, 1, 1)
  local colon = string.find(entry, ':', 2, true)
  local n = #ops + 1
  ops[n] = op
  attempts_sent[n] = string.sub(entry, 2, colon - 1)
  local member
  if op == 'A' or op == 'a' then
    member = string.sub(entry, colon + 1)
    j = j + 1
  elseif op == 'H' or op == 'L' then
    local second = string.find(entry, ':', colon + 1, true)
    delays[n] = tonumber(string.sub(entry, colon + 1, second - 1))
    member = string.sub(entry, second + 1)
    backs[#backs + 1] = n
    j = j + 1
  else
    if op == 'R' then
      local second = string.find(entry, ':', colon + 1, true)
      delays[n] = tonumber(string.sub(entry, colon + 1, second - 1))
      member = string.sub(entry, second + 1)
    else
      member = string.sub(entry, colon + 1)
    end
    texts[n] = ARGV[j + 1]
    j = j + 2
  end
  members[n] = member
  ids[n] = id_of(member)
end
if #members == 0 then return '' end
local leases = redis.call('ZMSCORE', KEYS[3], unpack(members))
local attempts = redis.call('HMGET', KEYS[4], unpack(ids))
-- The H and L ops that apply: their envelopes read with one HMGET, their new sequence numbers reserved with one INCRBY,
-- and the envelopes renumbered written with one HSET after the loop
local back_envelopes, seq, rewritten = {}, nil, {}
local prefix = nil -- the first 7 digits of seq, encoded again every 64 numbers (enqueue.lua's batch path)
if #backs > 0 then
  local back_ids, applying = {}, {}
  local seen = {}
  for _, i in ipairs(backs) do
    if leases[i] and attempts[i] == attempts_sent[i] then
      if seen[members[i]] then
        -- the same delivery handed back twice in one call: the first op applies, this one is stale (applied too, it
        -- would put the message back under a second new member, a stray left counted in its group)
        leases[i] = false
      else
        seen[members[i]] = true
        back_ids[#back_ids + 1] = ids[i]
        applying[#applying + 1] = i
      end
    end
  end
  if #back_ids > 0 then
    local read = redis.call('HMGET', KEYS[1], unpack(back_ids))
    for k, i in ipairs(applying) do back_envelopes[i] = read[k] end
    seq = reserve_sequence(KEYS[9], #back_ids) - 1
  end
end
local acked_members, acked_ids, windowed, retried = {}, {}, {}, {}
for i, member in ipairs(members) do
  local op, attempt, id = ops[i], attempts_sent[i], ids[i]
  if leases[i] and attempts[i] == attempt then
    if op == 'A' or op == 'a' then
      acked_members[#acked_members + 1] = member
      acked_ids[#acked_ids + 1] = id
      if op == 'A' then windowed[#windowed + 1] = id end
      -- a last error exists only after a retry (R), which counts an attempt that no later op takes back: so only
      -- a delivery of attempt 2 or later can have one
      if attempt ~= '1' then retried[#retried + 1] = id end
    elseif op == 'R' then
      local due = now + delays[i]
      local expiry = expiry_of(redis.call('HGET', KEYS[1], id))
      if expiry and due > expiry then due = expiry + 1 end
      redis.call('ZREM', KEYS[3], member)
      if not head_read then old_head, head_read = head_score(KEYS[2]), true end
      if is_grouped(member) then group_pend(queue, member, due, now) else redis.call('ZADD', KEYS[2], due, member) end
      redis.call('HSET', KEYS[5], id, texts[i])
      if earliest == nil or due < earliest then earliest = due end
    elseif op == 'H' or op == 'L' then
      local due = delays[i]
      local envelope = back_envelopes[i]
      if op == 'L' then
        due = now + due
        local expiry = expiry_of(envelope)
        if expiry and due > expiry then due = expiry + 1 end
      end
      redis.call('ZREM', KEYS[3], member)
      if not head_read then old_head, head_read = head_score(KEYS[2]), true end
      -- back under a new member (see the header); without an envelope (deleted by hand) the claim drops the member.
      -- A member out of step with its envelope (includes/format.lua's stray) whose envelope names a live member
      -- (lifecycle.lua's named_live: up to two ZSCOREs, on this mismatch path only) goes back as it was, and the next
      -- claim drops it; one the claim handed out as the message's only member is renumbered too, the envelope put in
      -- step with it, unless its shape (grouped or not) cannot be kept: a grouped member beside a format-1 envelope,
      -- or an ungrouped format-1 member beside a format-2 envelope naming a group, goes back as it was
      local back = member
      if envelope and (not stray(member, envelope) or not named_live(queue, id, envelope)) then
        seq = seq + 1
        local last = seq % 64
        if prefix == nil or last == 0 then prefix = string.sub(encode8(seq), 1, 7) end
        local fresh, renamed = renumber(id, member, envelope, seq, prefix .. string.sub(DIGITS64, last + 1, last + 1))
        if (is_grouped(renamed)) == (is_grouped(member)) then
          back = renamed
          rewritten[#rewritten + 1] = id
          rewritten[#rewritten + 1] = fresh
        end
      end
      if is_grouped(member) then
        group_pend(queue, back, due, now, member) -- out of the group's in-flight set under the old member
      else
        redis.call('ZADD', KEYS[2], due, back)
      end
      local previous = tonumber(attempt) - 1
      if previous > 0 then
        redis.call('HSET', KEYS[4], id, string.format('%d', previous))
      else
        redis.call('HDEL', KEYS[4], id)
      end
      if earliest == nil or due < earliest then earliest = due end
    else
      bury(queue, id, member, now, attempt, texts[i])
    end
    result[i] = '1'
  else
    result[i] = '0'
  end
end
if #rewritten > 0 then redis.call('HSET', KEYS[1], unpack(rewritten)) end
if #acked_ids > 0 then
  remember(queue, windowed) -- one HMGET ('A' acks only): ids sent with a dedup window stay taken for it
  -- what forget() does, for the whole batch (the windows of remembered ids are deleted by remember()), but for the
  -- delayed set: an acked delivery was current, so its member is in flight, and no script leaves a member in both
  -- sets (claims, retries and expired leases move it; sends, schedules and requeues write a new sequence number).
  -- A member put in the delayed set by hand is deleted by the claim that finds its envelope gone.
  redis.call('ZREM', KEYS[3], unpack(acked_members))
  redis.call('HDEL', KEYS[1], unpack(acked_ids))
  redis.call('HDEL', KEYS[4], unpack(acked_ids))
  if #retried > 0 then redis.call('HDEL', KEYS[5], unpack(retried)) end
  -- grouped messages (includes/groups.lua) also leave their group's in-flight set: one byte compare per ack otherwise
  for _, member in ipairs(acked_members) do
    if is_grouped(member) then group_forget(queue, member, now) end
  end
end
if earliest ~= nil then wake_if_earlier(ARGV[1], earliest, old_head) end
if KEYS[11] then flow_freed(KEYS[11], ARGV[1], now) end
return table.concat(result)
