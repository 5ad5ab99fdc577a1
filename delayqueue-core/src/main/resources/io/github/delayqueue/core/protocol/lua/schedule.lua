-- Every operation on one recurring schedule, atomically with its pending tick message.
-- KEYS: the standard layout (includes/keys.lua) of the schedule's partition, then, under the same hash tag:
--  11 schedules       HASH  schedule id -> definition (JSON written and read by Java only)
--  12 schedule-state  HASH  schedule id -> "<version>|<cursor>|<tick id>|<paused>|<running>":
--                           version   a number taken from the send counter at each create or replace, so a
--                                     schedule removed and created again never reuses one
--                           cursor    the instant (ms) of the latest tick written (or, while paused, to write on
--                                     resume): the only tick that may write the next one (the compare-and-set of
--                                     'advance')
--                           tick id   the message id of that tick ('' when the series ended)
--                           paused    1 while paused: no tick pending, the cursor kept for the resume
--                           running   the id of the latest tick whose handler was let run ('' none), for overlap
--  13 schedule-next   ZSET  schedule id -> cursor (ms): pages of a queue's schedules in next-tick order
-- ARGV: 1 wake channel, 2 op, 3 schedule id, then per op (below).
-- Returns: a list; its first item says what happened (per op, below).
-- Schedule ids hold no '|' (Java checks), so the state splits on it. Java computes tick instants (io.github.
-- delayqueue.core.schedule: cron needs a calendar); this script owns the cursor, the compare-and-set that makes a
-- tick written at most once, and the tick messages themselves.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "lifecycle"
--- @include "wake"

local keys = queue_keys(KEYS)
local op, sid = ARGV[2], ARGV[3]

local function state_of(id)
  local s = redis.call('HGET', KEYS[12], id)
  if not s then return nil end
  local v, c, k, p, r = string.match(s, '^(%d+)|(%-?%d+)|([^|]*)|([01])|(.*)$')
  return { v = v, c = c, k = k, p = p, r = r }
end

local function save(id, st)
  redis.call('HSET', KEYS[12], id, st.v .. '|' .. st.c .. '|' .. st.k .. '|' .. st.p .. '|' .. st.r)
end

-- Removes tick message `id` if it is pending; one in flight is left to finish. Returns 1 if removed.
local function untick(id)
  if id == '' then return 0 end
  local envelope = redis.call('HGET', KEYS[1], id)
  if not envelope then return 0 end
  local member = member_of(id, envelope)
  if redis.call('ZSCORE', KEYS[3], member) then return 0 end
  forget(keys, id, member)
  return 1
end

-- Writes tick message `id` due at `due` (ms) unless a message with that id is live. Returns 1 if written.
local function write_tick(id, due, body)
  if redis.call('HEXISTS', KEYS[1], id) == 1 then return 0 end
  local old_head = pending_head(KEYS[2])
  local s = encode8(reserve_sequence(KEYS[9], 1))
  local envelope = '2' .. s .. encode8(now_ms()) .. body
  redis.call('HSET', KEYS[1], id, envelope)
  pend(keys, member_of(id, envelope), due, nil) -- where its shape pends (ticks carry no priority: delayed)
  wake_if_earlier(ARGV[1], tonumber(due), old_head)
  return 1
end

if op == 'read' then
  -- Returns: now (ms, Redis clock), the definition ('' if none), the state ('' if none)
  return { string.format('%d', now_ms()), redis.call('HGET', KEYS[11], sid) or '',
    redis.call('HGET', KEYS[12], sid) or '' }
end

if op == 'put' then
  -- ARGV: 4 expected version ('0': the schedule must not exist), 5 definition, 6 first tick due (ms),
  --       7 first tick id, 8 first tick body, 9 '1' to create it paused (only when it does not exist yet)
  -- Replaces the definition and the pending tick (one in flight finishes; its 'advance' finds a new version and
  -- writes nothing). Returns {'conflict'} if the version moved since Java read it, {'inflight'} (nothing written)
  -- if the first tick is in flight (claimed since Java read the clock, its advance then stale: writing the cursor
  -- there would end the series), so Java computes the first tick after it; else {'ok', version}.
  local st = state_of(sid)
  if (st and st.v or '0') ~= ARGV[4] then return { 'conflict' } end
  if (st and st.p or ARGV[9]) == '0' then
    local envelope = redis.call('HGET', KEYS[1], ARGV[7])
    if envelope and redis.call('ZSCORE', KEYS[3], member_of(ARGV[7], envelope)) then return { 'inflight' } end
  end
  local running, paused = '', ARGV[9]
  if st then
    untick(st.k)
    running, paused = st.r, st.p
  end
  local version = string.format('%d', reserve_sequence(KEYS[9], 1))
  redis.call('HSET', KEYS[11], sid, ARGV[5])
  if paused == '0' then write_tick(ARGV[7], ARGV[6], ARGV[8]) end
  save(sid, { v = version, c = ARGV[6], k = ARGV[7], p = paused, r = running })
  redis.call('ZADD', KEYS[13], ARGV[6], sid)
  return { 'ok', version }
end

if op == 'advance' then
  -- The tick ARGV[5] (instant ARGV[4] ms) was claimed. ARGV: 6 the version Java read, 7 '1' for overlap 'skip',
  -- 8 next tick due ('' to write none), 9 next tick id, 10 next tick body, 11 '1' if its handler will not run
  -- whatever overlap says (the misfire policy skips it, or its payload cannot be decoded): not the running one.
  -- Overlap: with 'skip', the tick is left out while the latest tick let run (another id) is still live (in flight
  -- or waiting for a retry); else it becomes the running one. Then, only if the cursor is this tick and the version
  -- is the one read, moves the cursor to the next tick and writes it (unless paused): a late redelivery of an older
  -- tick finds the cursor moved and writes nothing, so no tick is written twice. The cursor's tick is thus always
  -- one whose handler has not been let run yet: pending, in flight before its advance, or (paused) to be written.
  -- Returns {'advanced'|'stale'|'gone', '1' if overlap leaves this tick out else '0'}.
  local st = state_of(sid)
  if not st then return { 'gone', '0' } end
  local tick = ARGV[5]
  local skip = '0'
  if ARGV[7] == '1' and st.r ~= '' and st.r ~= tick and redis.call('HEXISTS', KEYS[1], st.r) == 1 then
    skip = '1'
  elseif ARGV[11] ~= '1' then
    st.r = tick
  end
  if st.c ~= ARGV[4] or st.v ~= ARGV[6] then
    save(sid, st)
    return { 'stale', skip }
  end
  if ARGV[8] == '' then
    st.k = ''
  else
    -- paused since this tick was claimed: the cursor moves on all the same (this tick runs now, so a resume must
    -- not write it again), but the next tick is written only by the resume
    if st.p == '0' then write_tick(ARGV[9], ARGV[8], ARGV[10]) end
    st.c, st.k = ARGV[8], ARGV[9]
    redis.call('ZADD', KEYS[13], ARGV[8], sid)
  end
  save(sid, st)
  return { 'advanced', skip }
end

if op == 'remove' then
  -- Deletes the schedule and its pending tick. Returns {'1'} if it existed, else {'0'}.
  local st = state_of(sid)
  if not st then return { '0' } end
  untick(st.k)
  redis.call('HDEL', KEYS[11], sid)
  redis.call('HDEL', KEYS[12], sid)
  redis.call('ZREM', KEYS[13], sid)
  return { '1' }
end

if op == 'pause' then
  -- Marks it paused and removes its pending tick (the cursor stays). Returns {'1'} if it was running, {'0'} if it
  -- was paused already, {'gone'} if there is no such schedule.
  local st = state_of(sid)
  if not st then return { 'gone' } end
  if st.p == '1' then return { '0' } end
  untick(st.k)
  st.p = '1'
  save(sid, st)
  return { '1' }
end

if op == 'resume' then
  -- ARGV: 4 expected version, 5 body of the cursor's tick, 6 '1' to resume a paused schedule, '0' only to re-arm.
  -- Writes the cursor's tick again unless it is live (due at its instant, so a tick missed while paused is claimed
  -- at once and the misfire policy applies to it as to any late tick). Re-arming (also part of a resume) repairs a
  -- series whose tick was lost without being claimed by a consumer with the interceptor (dead-lettered before its
  -- handler ran, or deleted by hand): the cursor still names it, so writing it again is the at-least-once delivery
  -- of that tick, never a second one. A paused schedule is not re-armed, only resumed.
  -- Returns {'1'} resumed or re-armed, {'0'} nothing to do, {'gone'}, or {'conflict'} if the version moved since
  -- Java read it.
  local st = state_of(sid)
  if not st then return { 'gone' } end
  if st.v ~= ARGV[4] then return { 'conflict' } end
  local changed = 0
  if st.p == '1' then
    if ARGV[6] ~= '1' then return { '0' } end
    st.p = '0'
    save(sid, st)
    changed = 1
  end
  if st.k ~= '' then changed = changed + write_tick(st.k, st.c, ARGV[5]) end
  return { tostring(math.min(changed, 1)) }
end

if op == 'trigger' then
  -- ARGV: 4 message id, 5 body. Writes a tick due now, outside the series (the cursor does not move).
  -- Returns {'1'} written, {'0'} the id is live, {'gone'}.
  if redis.call('HEXISTS', KEYS[12], sid) == 0 then return { 'gone' } end
  return { tostring(write_tick(ARGV[4], string.format('%d', now_ms()), ARGV[5])) }
end

if op == 'page' then
  -- ARGV: 4 offset, 5 limit (at most 1,000). Schedules in next-tick order.
  -- Returns: the count, now (ms), then triples: schedule id, definition, state.
  local offset, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
  local out = { tostring(redis.call('ZCARD', KEYS[13])), string.format('%d', now_ms()) }
  local ids = redis.call('ZRANGE', KEYS[13], offset, offset + limit - 1)
  if #ids == 0 then return out end
  local defs = redis.call('HMGET', KEYS[11], unpack(ids))
  local states = redis.call('HMGET', KEYS[12], unpack(ids))
  for i, id in ipairs(ids) do
    out[#out + 1] = id
    out[#out + 1] = defs[i] or ''
    out[#out + 1] = states[i] or ''
  end
  return out
end

return redis.error_reply('unknown schedule op ' .. tostring(op))
