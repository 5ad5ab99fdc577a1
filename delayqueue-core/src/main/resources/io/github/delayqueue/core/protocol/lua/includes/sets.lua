-- Job sets, the queue's side (set.lua keeps the set's own keys, in the slot of the set's hash tag). A message sent in
-- a set carries the reserved header "dq-set", its set's id (format.lua's set_in reads it). When it leaves for good,
-- the script that settles it writes a mark in the queue's (partition's) own slot, in the same script as the outcome,
-- so that an outcome is never without its mark whatever crashes:
--   base .. 'set-marks'  ZSET  "<kind><set id>\31<id>" -> when it was written (ms, Redis clock); kind A acknowledged
--                              (settle.lua's S before acks: one mark per set and call, "A<set id>\31<id>\31<id>..."),
--                              D dead-lettered (dead_letters.lua's bury) or dropped at its expiry (admit.lua), C
--                              cancelled (cancelling.lua)
-- The engine forwards the marks of its own settles to their sets (set.lua's marks) at once, then deletes them; marks
-- left by an instance that died between the two are found by the periodic pass (hold.lua counts marks older than
-- SET_MARK_SWEEP_MS) and forwarded by whichever instance runs it. Forwarding is idempotent: a mark forwarded twice
-- counts once.
--- @include "format"

-- Writes the marks `entries` ({kind, set, id, ...} flattened as "<kind><set>\31<id>" strings) in one ZADD
local function set_marks(keys, now, entries)
  if #entries == 0 then return end
  local args = {}
  for i, entry in ipairs(entries) do
    args[2 * i - 1] = now
    args[2 * i] = entry
  end
  redis.call('ZADD', keys.base .. 'set-marks', unpack(args))
end

-- The mark of a message whose `envelope` names a set, if it does: one find when the envelope has headers
local function set_mark(keys, now, kind, id, envelope)
  local set = set_in(envelope)
  if set then redis.call('ZADD', keys.base .. 'set-marks', now, kind .. set .. '\31' .. id) end
end
