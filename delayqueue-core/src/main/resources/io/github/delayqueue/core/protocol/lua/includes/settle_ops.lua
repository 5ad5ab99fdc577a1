-- Settle stages "parse" and "fence": the ops of one settle call and which of them still hold their delivery.
-- An op is one argument, its member last (the only part that may hold ':'): "A<attempt>:<member>",
-- "a<attempt>:<member>", "H<attempt>:<due ms>:<member>", "L<attempt>:<delay ms>:<member>", or more for those that
-- carry texts: "R<attempt>:<delay ms>:<member>", text; "D<attempt>:<member>", text; "K<attempt>:<keep>:<member>",
-- record; "E<attempt>:<keep>:<member>", text, record (settle.lua's header says what each does); "S<set id>" between
-- ops names the job set of the messages of the ops after it, "S" alone none. A batch holds at most one current delivery per id and every op touches only its own id, so the fences of the
-- whole batch are read up front with two variadic commands (ZMSCORE, HMGET), the same as one by one.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "wake"

-- The ops of ARGV (from 2): their letters, attempts, members, ids, delays (R, H, L; for K and E how many records the
-- queue keeps), texts (R, D, E) and records (K, E), and the positions of the hand-backs (H, L)
local function settle_open(keys, argv)
  local s = { keys = queue_keys(keys), channel = argv[1], now = now_ms(), ops = {}, attempts_sent = {}, delays = {},
    texts = {}, records = {}, members = {}, ids = {}, backs = {}, acks = {}, result = {}, earliest = nil, old_head = nil,
    head_read = false, keep = nil, sets = {} }
  local j = 2
  local set = nil
  while j <= #argv do
    local entry = argv[j]
    local op = string.sub(entry, 1, 1)
    while op == 'S' do -- "S<set id>": the ops from here on are members of that job set ("S": of none; sets.lua)
      set = string.sub(entry, 2)
      if set == '' then set = nil end
      j = j + 1
      entry = argv[j]
      if not entry then return s end -- QueueOps ends with an op, never with an S
      op = string.sub(entry, 1, 1)
    end
    if not string.find('AaRDHLKE', op, 1, true) then error('settle.lua: unknown op ' .. op) end -- QueueOps sends none
    local colon = string.find(entry, ':', 2, true)
    local n = #s.ops + 1
    s.ops[n] = op
    s.sets[n] = set
    s.attempts_sent[n] = string.sub(entry, 2, colon - 1)
    local rest = colon + 1
    if op == 'R' or op == 'H' or op == 'L' or op == 'K' or op == 'E' then
      local second = string.find(entry, ':', rest, true)
      s.delays[n] = tonumber(string.sub(entry, rest, second - 1))
      rest = second + 1
    end
    if op == 'H' or op == 'L' then s.backs[#s.backs + 1] = n end
    s.members[n] = string.sub(entry, rest)
    s.ids[n] = id_of(s.members[n])
    if op == 'R' or op == 'D' then
      s.texts[n] = argv[j + 1]
      j = j + 2
    elseif op == 'K' then
      s.records[n] = argv[j + 1]
      j = j + 2
    elseif op == 'E' then
      s.texts[n], s.records[n] = argv[j + 1], argv[j + 2]
      j = j + 3
    else
      j = j + 1
    end
  end
  return s
end

-- Reads the fences of the batch: an op applies only while its member is in flight and its attempt is the latest
local function read_fences(s)
  s.leases = redis.call('ZMSCORE', s.keys.inflight, unpack(s.members))
  s.attempts = redis.call('HMGET', s.keys.attempts, unpack(s.ids))
end

local function fenced(s, i)
  return s.leases[i] and s.attempts[i] == s.attempts_sent[i]
end

-- The head of delayed before this call's writes (read once, at the first op that puts a message back), for the wake-up
local function before_write(s)
  if not s.head_read then s.old_head, s.head_read = pending_head(s.keys.delayed), true end
end

-- Notes a message put back due at `due`, for the wake-up
local function due_back(s, due)
  if s.earliest == nil or due < s.earliest then s.earliest = due end
end
