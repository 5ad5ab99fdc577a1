-- Ordering members: how a message is named in the delayed and in-flight sets, and the sequence numbers that
-- order it. A ZSET member is "~<seq8><id>" (format 1: "<seq12><id>"): equal due times are claimed in send order
-- because a ZSET orders equal scores by member bytes. <seq8> and <enqueued8> are numbers written with 8
-- digits of an alphabet in ASCII order, so byte order is numeric order; the leading '~' sorts after
-- every hex digit, so format-1 members left from an older release still come first.

local DIGITS64 = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz'

-- n (an integer below 2^48) as 8 order-preserving base-64 digits. Unrolled, with one string.char call
-- rather than a table of one-character strings joined: this runs once or twice per enqueue call, and
-- the table version cost about twice as much (a loop of calls in one EVAL: 1.3-1.6 us against 0.6-0.8 us).
local function encode8(n)
  local d8 = n % 64; n = (n - d8) / 64
  local d7 = n % 64; n = (n - d7) / 64
  local d6 = n % 64; n = (n - d6) / 64
  local d5 = n % 64; n = (n - d5) / 64
  local d4 = n % 64; n = (n - d4) / 64
  local d3 = n % 64; n = (n - d3) / 64
  local d2 = n % 64; n = (n - d2) / 64
  local d1 = n % 64
  local byte = string.byte
  return string.char(byte(DIGITS64, d1 + 1), byte(DIGITS64, d2 + 1), byte(DIGITS64, d3 + 1), byte(DIGITS64, d4 + 1),
    byte(DIGITS64, d5 + 1), byte(DIGITS64, d6 + 1), byte(DIGITS64, d7 + 1), byte(DIGITS64, d8 + 1))
end

-- A grouped message (SendOptions.group, includes/groups.lua) is the member "|<seq8><group>\31<id>": the group is
-- read from the member alone (settles and expired leases need no lookup); neither a group nor an id holds a
-- control character. '|' sorts before '~', but grouped members live only in their group's set and in flight.
local function id_of(member)
  if string.byte(member, 1) == 126 then return string.sub(member, 10) end
  if string.byte(member, 1) == 124 then return string.sub(member, (string.find(member, '\31', 10, true) or #member) + 1) end
  return string.sub(member, 13)
end

-- The group a format-2 envelope's body carries (the header "dq-group", written by Java after the dedup window and
-- the expiry and before the caller's headers, of printable ASCII without quotes or backslashes), or nil. `at` is
-- where the body "<length>:{...}<payload>" starts. A body without headers costs one byte compare.
local GROUP_HEADER = '"dq-group":"'
local function group_in(text, at)
  if string.byte(text, at) == 48 then return nil end -- '0:' no headers
  local colon = string.find(text, ':', at, true)
  if not colon then return nil end
  local length = tonumber(string.sub(text, at, colon - 1))
  if not length then return nil end
  local headers = string.sub(text, colon + 1, colon + length)
  local k = string.find(headers, GROUP_HEADER, 1, true)
  if not k then return nil end
  local to = string.find(headers, '"', k + #GROUP_HEADER, true)
  if not to or to == k + #GROUP_HEADER then return nil end -- an empty group is none (Java writes none: not blank)
  return string.sub(headers, k + #GROUP_HEADER, to - 1)
end

local function member_of(id, envelope)
  if string.byte(envelope, 1) == 50 then
    local group = group_in(envelope, 18)
    if group then return '|' .. string.sub(envelope, 2, 9) .. group .. '\31' .. id end
    return '~' .. string.sub(envelope, 2, 9) .. id
  end
  return string.sub(envelope, 3, 14) .. id
end

-- Whether `member` is a stray: its id's stored `envelope`, in a format this release writes or reads (2, or 1), carries
-- another sequence number (member_of's inverse, for the sequence alone: a claim's check per message, two short
-- substrings compared). Every script writes a member and its envelope together, so a stray was written by hand or left
-- by an older release (a cancel that kept the member), and names a later message of the same id. An envelope of no
-- known format is not judged here: the claim hands it out and the consumer dead-letters it with its reason. A value
-- that only looks like format 2 or 1 passes here: callers drop a member only once lifecycle.lua's named_live finds
-- the member the envelope names (no command on this common path, a few on the mismatch path).
local function stray(member, envelope)
  local first = string.byte(member, 1)
  if first == 126 or first == 124 then
    if string.sub(member, 2, 9) == string.sub(envelope, 2, 9) then return false end
  elseif string.sub(member, 1, 12) == string.sub(envelope, 3, 14) then
    return false
  end
  local format = string.byte(envelope, 1)
  return format == 50 or (format == 49 and string.byte(envelope, 2) == 58)
end

-- Reserves n sequence numbers from the queue's sequence key; returns the first
local function reserve_sequence(sequence, n)
  return redis.call('INCRBY', sequence, n) - n + 1
end

-- A live message's envelope under the sequence number `seq`, in the envelope's own format; the rest (enqueued time,
-- body) is kept. Its member is then member_of(id, renumbered(...)): a member no earlier script wrote for the id.
local function renumbered(envelope, seq)
  if string.byte(envelope, 1) == 50 then return '2' .. encode8(seq) .. string.sub(envelope, 10) end
  return '1:' .. string.format('%012x', seq) .. string.sub(envelope, 15)
end

-- renumbered() for a message in flight under `member`, with `s8` = encode8(seq) (a caller renumbering several takes
-- consecutive numbers and encodes them as enqueue.lua's batch path does): its envelope and member, the member cut from
-- the old one rather than read back from the envelope's headers (member_of), when both are format 2
local function renumber(id, member, envelope, seq, s8)
  local first = string.byte(member, 1)
  if string.byte(envelope, 1) == 50 and (first == 126 or first == 124) then
    return '2' .. s8 .. string.sub(envelope, 10), string.sub(member, 1, 1) .. s8 .. string.sub(member, 10)
  end
  local fresh = renumbered(envelope, seq)
  return fresh, member_of(id, fresh)
end
