-- The stored format (version 2), owned here and nowhere else: how a message is named in the delayed, in-flight and
-- group sets (its member), how its envelope in the messages hash is laid out, and how the reserved headers are read
-- from it. Every script reads and builds members and envelopes through these functions; Java's owner of the same
-- format is protocol.Envelope. docs/internals/redis-layout.md specifies it, with what each earlier format becomes.
--
-- Members: "~<seq8><id>" (format 2), "|<seq8><group>\31<id>" (format 2, grouped: SendOptions.group),
-- "^<level><seq8><id>" (format 2, with a priority other than the default: SendOptions.priority, one digit), or
-- "<seq12><id>" (format 1, still read). Equal due times are claimed in send order because a ZSET orders equal scores
-- by member bytes. <seq8> and <enqueued8> are numbers written with 8 digits of an alphabet in ASCII order, so byte
-- order is numeric order; the leading '~' sorts after every hex digit, so format-1 members left from an older release
-- still come first. '|' sorts before '~', but grouped members live only in their group's set and in flight.
-- Envelopes: "2<seq8><enqueued8><length>:{<headers>}<payload>" (format 1: "1:<seq12>:<enqueuedMs>:<body>"). The
-- reserved headers come first, in this order, each only when set: "dq-dedup-window" (ms), "dq-expires" (epoch ms,
-- or "+<ms>" after the enqueue time), "dq-group", "dq-priority" (never with a group), "dq-set"; then the caller's
-- headers. Values are printable ASCII without
-- quotes or backslashes.

local GROUPED = 124 -- '|'
local UNGROUPED = 126 -- '~'
local PRIORITIZED = 94 -- '^'

-- Whether a stored envelope is of the current format (else format 1, or no envelope of ours)
local function is_format2(envelope)
  return string.byte(envelope, 1) == 50
end

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

-- Whether a member is of a grouped message (or names no group although of that shape: group_of gives nil)
local function is_grouped(member)
  return string.byte(member, 1) == GROUPED
end

-- The groups index's member in delayed (includes/groups.lua): of the grouped shape, but id_of() gives '': never a
-- message (ids are not blank)
local GROUPS_MARK = '|--------\31'

-- A member's id: the group is read from a grouped member alone (settles and expired leases need no lookup); neither
-- a group nor an id holds a control character.
local function id_of(member)
  local first = string.byte(member, 1)
  if first == UNGROUPED then return string.sub(member, 10) end
  if first == PRIORITIZED then return string.sub(member, 11) end
  if is_grouped(member) then return string.sub(member, (string.find(member, '\31', 10, true) or #member) + 1) end
  return string.sub(member, 13)
end

-- The group of a grouped member (first byte '|'), or nil for a member of that shape that names none: shorter than
-- the sequence, no '\31' after it, or an empty group (no script writes one: written by hand or corrupted; the marker
-- GROUPS_MARK is one, and is never read here). Such a member is an orphan: the helpers below leave it alone (pend
-- adds it nowhere, forget finds it nowhere) and the claim that meets it drops it, as it drops a member without a
-- message (or, due in delayed as its message's only member, dead-letters the message as corrupt: claim.lua), rather
-- than failing every claim of the queue. One find, no command.
local function group_of(member)
  local at = string.find(member, '\31', 10, true)
  if at == nil or at == 10 then return nil end
  return string.sub(member, 10, at - 1)
end

-- A member's place in send order among members due at the same time, whatever its shape: format 1 first (as delayed
-- orders it), then by sequence number
local function send_rank(member)
  local first = string.byte(member, 1)
  if first == GROUPED or first == UNGROUPED then return '~' .. string.sub(member, 2, 9) end
  if first == PRIORITIZED then return '~' .. string.sub(member, 3, 10) end
  return member
end

-- Whether a member is of a message sent with a priority other than the default (includes/priorities.lua: it pends in
-- its priority's set, not in delayed), or one of the priorities' markers in delayed (two bytes: no id)
local function is_prioritized(member)
  return string.byte(member, 1) == PRIORITIZED
end


-- The group a format-2 envelope's body carries (the header "dq-group", written by Java after the dedup window and
-- the expiry and before the caller's headers, of printable ASCII without quotes or backslashes), or nil. `at` is
-- where the body "<length>:{...}<payload>" starts. A body without headers costs one byte compare.
local GROUP_HEADER = '"dq-group":"'
local PRIORITY_HEADER = '"dq-priority":"'
local SET_HEADER = '"dq-set":"'

-- A body whose only header is its priority ("19:{"dq-priority":"<digit>"}", as most prioritized messages are) is
-- told by one compare of its first 20 bytes: then it carries no other reserved header, and its priority is the byte
-- after them. The readers below take that path first, as they take '0:' (no headers) for a body without headers.
local PRIORITY_ONLY = '19:{"dq-priority":"'

local function priority_only(text, at)
  return string.sub(text, at, at + 19) == PRIORITY_ONLY
end

-- The value of the reserved header `pattern` ('"<name>":"') a body starting at `at` carries, or nil
local function reserved_in(text, at, pattern)
  if string.byte(text, at) == 48 then return nil end -- '0:' no headers
  local colon = string.find(text, ':', at, true)
  if not colon then return nil end
  local length = tonumber(string.sub(text, at, colon - 1))
  if not length then return nil end
  local headers = string.sub(text, colon + 1, colon + length)
  local k = string.find(headers, pattern, 1, true)
  if not k then return nil end
  local to = string.find(headers, '"', k + #pattern, true)
  if not to or to == k + #pattern then return nil end -- an empty value is none (Java writes none: not blank)
  return string.sub(headers, k + #pattern, to - 1)
end

local function group_in(text, at)
  if priority_only(text, at) then return nil end
  return reserved_in(text, at, GROUP_HEADER)
end

-- The priority a body starting at `at` carries (the header "dq-priority": one digit, written by Java only for a
-- priority other than the default and never with a group), as its digit, or nil for the default. A body without
-- headers costs one byte compare.
local function priority_in(text, at)
  local level
  if priority_only(text, at) then
    level = string.sub(text, at + 20, at + 20)
    if string.sub(text, at + 21, at + 22) ~= '"}' then level = nil end
  else
    level = reserved_in(text, at, PRIORITY_HEADER)
  end
  if level and #level == 1 and string.byte(level) >= 48 and string.byte(level) <= 57 then return level end
  return nil
end

-- The job set (includes/sets.lua) a stored envelope's message belongs to (the header "dq-set", after the group and
-- before the caller's headers), or nil; format 2 only (no release of format 1 wrote sets)
local function set_in(envelope)
  if not envelope or string.byte(envelope, 1) ~= 50 or priority_only(envelope, 18) then return nil end
  return reserved_in(envelope, 18, SET_HEADER)
end

-- The member a stored envelope names for `id`
local function member_of(id, envelope)
  if is_format2(envelope) then
    local group = group_in(envelope, 18)
    if group then return '|' .. string.sub(envelope, 2, 9) .. group .. '\31' .. id end
    local level = priority_in(envelope, 18)
    if level then return '^' .. level .. string.sub(envelope, 2, 9) .. id end
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
  if first == UNGROUPED or first == GROUPED then
    if string.sub(member, 2, 9) == string.sub(envelope, 2, 9) then return false end
  elseif first == PRIORITIZED then
    if string.sub(member, 3, 10) == string.sub(envelope, 2, 9) then return false end
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
  if is_format2(envelope) then return '2' .. encode8(seq) .. string.sub(envelope, 10) end
  return '1:' .. string.format('%012x', seq) .. string.sub(envelope, 15)
end

-- renumbered() for a message in flight under `member`, with `s8` = encode8(seq) (a caller renumbering several takes
-- consecutive numbers and encodes them as enqueue.lua's batch path does): its envelope and member, the member cut from
-- the old one rather than read back from the envelope's headers (member_of), when both are format 2
local function renumber(id, member, envelope, seq, s8)
  local first = string.byte(member, 1)
  if string.byte(envelope, 1) == 50 and (first == UNGROUPED or first == GROUPED) then
    return '2' .. s8 .. string.sub(envelope, 10), string.sub(member, 1, 1) .. s8 .. string.sub(member, 10)
  end
  if string.byte(envelope, 1) == 50 and first == PRIORITIZED then
    return '2' .. s8 .. string.sub(envelope, 10), string.sub(member, 1, 2) .. s8 .. string.sub(member, 11)
  end
  local fresh = renumbered(envelope, seq)
  return fresh, member_of(id, fresh)
end

-- Reserved headers, read at their fixed places in a format-2 envelope's body

-- The header Java writes first in a body "<length>:{"dq-dedup-window":"<ms>",...}<payload>"
local WINDOW_HEADER = '{"dq-dedup-window":"'

-- The dedup window (ms, a string) a body carries, or nil
local function window_of(body)
  if string.byte(body, 1) == 48 then return nil end -- '0:' no headers
  local colon = string.find(body, ':', 1, true)
  if not colon or string.sub(body, colon + 1, colon + #WINDOW_HEADER) ~= WINDOW_HEADER then return nil end
  local from = colon + #WINDOW_HEADER + 1
  local to = string.find(body, '"', from, true)
  if not to then return nil end
  local window = string.sub(body, from, to - 1)
  local ms = tonumber(window)
  if not ms or ms < 1 or ms ~= math.floor(ms) then return nil end
  return window
end


local EXPIRY_AT_START = '{"dq-expires":"'
local EXPIRY_AFTER_WINDOW = ',"dq-expires":"'
local WINDOW_AT_START = '{"dq-dedup-window":"'

-- The expiry (epoch ms, a number) of a stored envelope "2<seq8><enqueued8><length>:{...}<payload>", or nil. A
-- message without headers costs one byte compare; with headers but no expiry, a few substring compares.
local function expiry_of(envelope)
  if not envelope or not is_format2(envelope) or string.byte(envelope, 18) == 48 or priority_only(envelope, 18) then
    return nil
  end
  local colon = string.find(envelope, ':', 18, true)
  if not colon then return nil end
  local at = colon + 1
  local key = EXPIRY_AT_START
  if string.sub(envelope, at, at + #WINDOW_AT_START - 1) == WINDOW_AT_START then
    local close = string.find(envelope, '"', at + #WINDOW_AT_START, true)
    if not close then return nil end
    at = close + 1
    key = EXPIRY_AFTER_WINDOW
  end
  if string.sub(envelope, at, at + #key - 1) ~= key then return nil end
  local from = at + #key
  local to = string.find(envelope, '"', from, true)
  if not to then return nil end
  if string.byte(envelope, from) == 43 then -- '+': ms after the enqueue time (<enqueued8>, characters 10-17)
    local after = tonumber(string.sub(envelope, from + 1, to - 1))
    if not after then return nil end
    local enqueued = 0
    for k = 10, 17 do
      -- a byte of no digit (a corrupt envelope): no expiry here; the consumer dead-letters the envelope as corrupt
      local digit = string.find(DIGITS64, string.sub(envelope, k, k), 1, true)
      if not digit then return nil end
      enqueued = enqueued * 64 + digit - 1
    end
    return enqueued + after
  end
  return tonumber(string.sub(envelope, from, to - 1))
end
