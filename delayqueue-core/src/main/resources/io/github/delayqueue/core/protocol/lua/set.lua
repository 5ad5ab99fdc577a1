-- Keeps a job set: its members, counts and callbacks (docs/internals/redis-layout.md, "Job sets").
-- KEYS (in the slot of the set's hash tag, <prefix>:set:{<set id>}:..., on a Cluster not that of its members):
--       1 state  HASH  the set's fields (below), and one field per member, "<queue>:<id>" (a child set:
--                      "(set):<child id>") -> P pending, A acknowledged, D dead (dead-lettered, or dropped at its
--                      expiry), C cancelled
--       2 dead   ZSET  member -> when it was first counted dead: the dead members a status lists
--       3 deaths ZSET  member -> when it died: the members whose death callback is due and not yet sent
-- The set's fields start with '!', which no member starts with (a queue name is [A-Za-z0-9_.-], a child '('):
--   !total !acked !dead !cancelled  counts (pending is the rest)     !sealed  '1' once its first members are all added
--   !ret    how long the keys are kept after the set's last change (ms), !last (ms, Redis clock)
--   !at     when it was created (ms, Redis clock)
--   !cb:s !cb:c !cb:d  the callbacks (success, complete, death), opaque here (Java's JobSets writes and reads them)
--   !parent the set this one is a member of, if any       !fired:s !fired:c !fired:ps !fired:pd  '1' once sent
-- A member's outcome reaches the set as a mark (includes/sets.lua) forwarded by the engine, at least once: a mark is
-- applied once per member (a member acknowledged twice counts once), and in the order the outcomes allow: P becomes
-- anything, D may become A or C (a dead letter requeued by hand, then handled or cancelled), C may become A or D,
-- A stays; an add sends D and C back to P (the member sent again). A member without a field is pending: one of the
-- first members, counted by open.
-- ARGV: 1 the op, then its arguments:
--   open <ret> <cb:s> <cb:c> <cb:d> <parent> <until> <count>  creates the set with its <count> first members
--                                              counted pending, without a field each (a member's field is written
--                                              at its first outcome); '' for a callback or parent it has none of. A
--                                              set that exists is kept as it is (a create sent again: reopen
--                                              follows). <until>: the latest due time of its members (ms since the
--                                              epoch, or ''): the keys are kept until the retention after it, if later
--   reopen <until> <member>...                 the first members sent again: those dead or cancelled are pending
--                                              again; fails with 'ERR set complete' as add does
--   add <until> <member>...                    adds members as pending: a new one, or one dead or cancelled (sent
--                                              again); one pending or acknowledged keeps its state. Fails with
--                                              'ERR no such set', or 'ERR set complete' when it would add or reopen
--                                              a member of a set whose complete callback was sent
--   seal                                       the set's first members are all added: its callbacks may become due
--   marks <kind><member>...                    outcomes: kind A, D or C
--   fired <token>...                           callbacks sent (tokens as returned below)
--   due                                        only the due callbacks (a sweep)
--   read <limit>                               the status: see the end of this script
-- Returns: (all ops but read) 1 if the set exists (0: gone, past its retention; 2: open created it), then the callbacks due and not yet
-- sent, each as a token and what it needs: 's' <cb:s>, 'c' <cb:c>, 'ps' <parent>, 'pd' <parent> (the set as a
-- member of its parent: acknowledged, or completed with members not acknowledged), 'd<member>' <cb:d> (at most
-- DEATHS per call: a sweep or the next mark returns the rest). A callback is due once its condition holds and stays
-- due until 'fired' names it: whoever sends it sends it under an id of its own and a dedup window, so that two
-- senders make one message.
-- Only commands of the documented ACL rule set: HSET, HGET, HMGET, HINCRBY, ZADD, ZREM, ZRANGE, ZSCORE, PEXPIRE.
--- @include "clock"

local DEATHS = 100
local state, dead, deaths = KEYS[1], KEYS[2], KEYS[3]
local op = ARGV[1]

local function exists()
  return redis.call('HGET', state, '!at') ~= false
end

-- The keys expire the retention after the set's last change, or after its latest member's due time if later
local function keep_alive()
  local f = redis.call('HMGET', state, '!ret', '!until')
  if f[1] then
    local now = now_ms()
    redis.call('HSET', state, '!last', now)
    local ttl = tonumber(f[1]) + math.max(0, (tonumber(f[2]) or 0) - now)
    redis.call('PEXPIRE', state, ttl)
    redis.call('PEXPIRE', dead, ttl)
    redis.call('PEXPIRE', deaths, ttl)
  end
end

-- Notes a member due as late as `at` (ms since the epoch, the sender's clock): the set is kept past it
local function due_until(at)
  local ms = tonumber(at)
  if ms and ms > (tonumber(redis.call('HGET', state, '!until')) or 0) then
    redis.call('HSET', state, '!until', string.format('%d', ms))
  end
end

local COUNT = { A = '!acked', D = '!dead', C = '!cancelled' }

-- The callbacks due and not yet sent, after the set's tokens
local function due(out)
  local f = redis.call('HMGET', state, '!sealed', '!total', '!acked', '!dead', '!cancelled', '!cb:s', '!cb:c',
    '!cb:d', '!parent', '!fired:s', '!fired:c', '!fired:ps', '!fired:pd')
  local total, acked = tonumber(f[2] or '0'), tonumber(f[3] or '0')
  local settled = acked + tonumber(f[4] or '0') + tonumber(f[5] or '0')
  if f[1] == '1' and total > 0 then
    local success, complete = acked == total, settled == total
    if success and f[6] and f[6] ~= '' and not f[10] then out[#out + 1] = 's'; out[#out + 1] = f[6] end
    if complete and f[7] and f[7] ~= '' and not f[11] then out[#out + 1] = 'c'; out[#out + 1] = f[7] end
    if f[9] and f[9] ~= '' then
      if success and not f[12] then out[#out + 1] = 'ps'; out[#out + 1] = f[9] end
      if complete and not success and not f[13] then out[#out + 1] = 'pd'; out[#out + 1] = f[9] end
    end
  end
  if f[8] and f[8] ~= '' then
    for _, member in ipairs(redis.call('ZRANGE', deaths, 0, DEATHS - 1)) do
      out[#out + 1] = 'd' .. member
      out[#out + 1] = f[8]
    end
  end
  return out
end

-- Applies outcome marks "<kind><member>": one HMGET, one HSET and an HINCRBY per count that moved
local function apply_marks(from)
  local members, kinds = {}, {}
  for i = from, #ARGV do
    members[#members + 1] = string.sub(ARGV[i], 2)
    kinds[#kinds + 1] = string.sub(ARGV[i], 1, 1)
  end
  local current = redis.call('HMGET', state, unpack(members))
  local writes, deltas, seen, now, cb_death = {}, {}, {}, nil, nil
  for i, member in ipairs(members) do
    local was, kind = seen[member] or current[i], kinds[i]
    if COUNT[kind] ~= nil and was ~= kind and was ~= 'A' then
      if was and was ~= 'P' then deltas[COUNT[was]] = (deltas[COUNT[was]] or 0) - 1 end
      deltas[COUNT[kind]] = (deltas[COUNT[kind]] or 0) + 1
      writes[#writes + 1] = member
      writes[#writes + 1] = kind
      seen[member] = kind
      if kind == 'D' then
        now = now or now_ms()
        if redis.call('ZSCORE', dead, member) == false then
          redis.call('ZADD', dead, now, member)
          if cb_death == nil then cb_death = redis.call('HGET', state, '!cb:d') or '' end
          if cb_death ~= '' then redis.call('ZADD', deaths, now, member) end
        end
      elseif was == 'D' then
        redis.call('ZREM', dead, member)
      end
    end
  end
  if #writes == 0 then return end
  redis.call('HSET', state, unpack(writes))
  for field, delta in pairs(deltas) do
    if delta ~= 0 then redis.call('HINCRBY', state, field, delta) end
  end
end

-- add (new members) or reopen (the first members sent again: counted when the set was opened): a member new to the
-- set (add only: absent means counted already on reopen), or sent again after it died or was cancelled, is pending;
-- one pending or acknowledged keeps its state. Returns an error reply for a set whose complete callback was sent.
local function add_members(absent_is_new)
  local members = {}
  for i = 3, #ARGV do members[#members + 1] = ARGV[i] end
  local current = redis.call('HMGET', state, unpack(members))
  local writes, deltas = {}, { ['!total'] = 0 }
  for i, member in ipairs(members) do
    local was = current[i]
    if (not was and absent_is_new) or was == 'D' or was == 'C' then
      writes[#writes + 1] = member
      writes[#writes + 1] = 'P'
      if not was then
        deltas['!total'] = deltas['!total'] + 1
      else
        deltas[COUNT[was]] = (deltas[COUNT[was]] or 0) - 1
        if was == 'D' then
          redis.call('ZREM', dead, member)
          redis.call('ZREM', deaths, member)
        end
      end
    end
  end
  if #writes > 0 then
    if redis.call('HGET', state, '!fired:c') then return redis.error_reply('ERR set complete') end
    redis.call('HSET', state, unpack(writes))
    for field, delta in pairs(deltas) do
      if delta ~= 0 then redis.call('HINCRBY', state, field, delta) end
    end
  end
  due_until(ARGV[2])
  return nil
end

if op == 'read' then
  -- {exists, total, acked, dead, cancelled, sealed, created ms, retention ms, what the retention counts from (the last
  --  change, or the latest member's due time if later), parent, fired flags "s,c",
  --  how many callbacks are due and not yet sent, the dead members (at most <limit>, the first to die first)}
  if not exists() then return { 0 } end
  local f = redis.call('HMGET', state, '!total', '!acked', '!dead', '!cancelled', '!sealed', '!at', '!ret', '!parent',
    '!fired:s', '!fired:c', '!last', '!until')
  local kept_from = math.max(tonumber(f[11] or f[6] or '0'), tonumber(f[12] or '0'))
  local out = { 1, f[1] or '0', f[2] or '0', f[3] or '0', f[4] or '0', f[5] or '0', f[6] or '0', f[7] or '0',
    string.format('%d', kept_from), f[8] or '', (f[9] and 's' or '') .. (f[10] and 'c' or ''), #due({}) / 2 }
  local limit = tonumber(ARGV[2])
  if limit > 0 then
    for _, member in ipairs(redis.call('ZRANGE', dead, 0, limit - 1)) do out[#out + 1] = member end
  end
  return out
end

local created = false
if op == 'open' then
  if not exists() then
    redis.call('HSET', state, '!at', now_ms(), '!ret', ARGV[2], '!total', ARGV[8], '!acked', 0, '!dead', 0,
      '!cancelled', 0, '!cb:s', ARGV[3], '!cb:c', ARGV[4], '!cb:d', ARGV[5], '!parent', ARGV[6])
    created = true
  end
  due_until(ARGV[7])
elseif not exists() then
  if op == 'add' then return redis.error_reply('ERR no such set') end
  return { 0 } -- marks of a set past its retention (or never opened): nothing to count them in
elseif op == 'add' or op == 'reopen' then
  local err = add_members(op == 'add')
  if err then return err end
elseif op == 'seal' then
  redis.call('HSET', state, '!sealed', '1')
elseif op == 'marks' then
  apply_marks(2)
elseif op == 'fired' then
  for i = 2, #ARGV do
    local token = ARGV[i]
    if string.sub(token, 1, 1) == 'd' then
      redis.call('ZREM', deaths, string.sub(token, 2))
    else
      redis.call('HSET', state, '!fired:' .. token, '1')
    end
  end
end
keep_alive()
return due({ created and 2 or 1 })
