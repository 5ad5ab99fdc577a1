-- Flow control of the claim: rate limit, cap on messages in flight, hold (claim.lua, settle.lua, hold.lua).
-- Its key, the queue's flow HASH (KEYS[11] of those scripts, in the queue's hash tag):
--   'tat'     the rate limit's theoretical arrival time (GCRA), microseconds on the Redis clock: one permit
--             becomes free at tat - tolerance; each message claimed moves it on by one interval
--   'hold'    claims hand nothing out before this time (ms, Redis clock): a handler said "slow down"
--   'waiting' present while a claim found the in-flight cap reached: the next settle publishes a wake-up
--   'limits'  the limits the claims apply, "<interval us>:<tolerance us>:<cap>" as flow_open takes them: written by a
--             claim with limits that finds another value (deleted with 'claims' by a consumer without limits when it
--             starts and every 10 poll intervals: a claim without limits reads the hold alone), so a reader
--             (stats.lua) sees what the claims enforce
--   'claims'  messages claimed under limits, for the claim rate: "<window>:<claimed in it>:<claimed in the window
--             before>", windows of FLOW_WINDOW_MS on the Redis clock; kept by claims with limits only
-- A hash (HGET, HSET, HDEL) as the paused key is, so an ACL that allows the other scripts allows this one.

--- @include "gcra"

-- The flow limits of one claim on the flow hash `key` and the in-flight set `inflight`. ARGV strings: interval
-- between permits (us, 0: no rate limit), how far the theoretical arrival time may run ahead of the clock (us:
-- (burst - 1) * interval), cap on messages in flight (0: none), and how long after the next permit a held-back
-- claim names as its next event (us: (gather - 1) * interval, gather half the burst rounded down, at least 1):
-- consumers then wake when that many permits are free, not one, so several instances do not all claim once per
-- permit, and the other half of the burst absorbs late wake-ups (at most the burst is ever free).
local function flow_open(key, inflight, interval, tolerance, max_inflight, gather, now, now_us)
  local f = { key = key, inflight = inflight, interval = tonumber(interval), tolerance = tonumber(tolerance),
    cap = tonumber(max_inflight), gather = tonumber(gather or '0'), now = now, now_us = now_us, gate = nil,
    reason = '', tat = nil, limits = false, claims = false }
  if f.interval > 0 or f.cap > 0 then f.limits = interval .. ':' .. tolerance .. ':' .. max_inflight end
  return f
end

-- The claim rate's windows (see 'claims' above), as of `now` (ms): the current window, claimed in it, in the one before.
local FLOW_WINDOW_MS = 10000
local function flow_window(claims, now)
  local w = math.floor(now / FLOW_WINDOW_MS)
  local at, cur, prev = string.match(claims or '', '^(%d+):(%d+):(%d+)$')
  at = tonumber(at)
  if at == w then return w, tonumber(cur), tonumber(prev) end
  if at == w - 1 then return w, 0, tonumber(cur) end
  return w, 0, 0
end

-- How many of `wanted` due messages the limits let this claim take now (0 when a limit holds them all).
-- Without limits one HGET reads the hold; with limits one HMGET reads it with the recorded limits, the arrival time
-- and the claim counts.
local function flow_allow(f, wanted)
  local state, hold
  if f.limits then
    state = redis.call('HMGET', f.key, 'hold', 'limits', 'tat', 'claims')
    hold, f.claims = state[1], state[4]
    if state[2] ~= f.limits then redis.call('HSET', f.key, 'limits', f.limits) end
  else
    hold = redis.call('HGET', f.key, 'hold')
  end
  hold = tonumber(hold or '0')
  if hold > f.now then
    f.gate, f.reason = hold, 'H'
    return 0
  end
  if f.cap > 0 then
    local room = f.cap - redis.call('ZCARD', f.inflight)
    if room <= 0 then
      f.gate, f.reason = false, 'F'
      return 0
    end
    if room < wanted then wanted = room end
  end
  if f.interval > 0 then
    local permits, tat = gcra_permits(f.interval, f.tolerance, tonumber(state[3] or '0'), f.now_us)
    f.tat = tat
    if permits <= 0 then
      f.gate, f.reason = math.ceil((tat - f.tolerance + f.gather) / 1000), 'R'
      return 0
    end
    if permits < wanted then wanted = permits end
  end
  return wanted
end

-- Records that this claim took `taken` messages: the rate limit's arrival time moves on, and a cap reached or
-- a next permit in the future becomes the gate of the messages still due.
local function flow_took(f, taken)
  if f.limits and taken > 0 then
    local w, cur, prev = flow_window(f.claims, f.now)
    local fields = { 'claims', string.format('%d:%d:%d', w, cur + taken, prev) }
    if f.interval > 0 and f.tat ~= nil then
      local tat = gcra_spend(f.tat, taken, f.interval)
      fields[3], fields[4] = 'tat', string.format('%.0f', tat)
      if math.ceil((tat - f.tolerance) / 1000) > f.now then
        f.gate, f.reason = math.ceil((tat - f.tolerance + f.gather) / 1000), 'R'
      end
    end
    redis.call('HSET', f.key, unpack(fields))
  end
  if f.cap > 0 and f.gate == nil and redis.call('ZCARD', f.inflight) >= f.cap then
    f.gate, f.reason = false, 'F'
  end
end

-- When the head of the delayed set (due at `head`, ms, or nil) may next be claimed: the head itself, later
-- when a limit holds it (the permits to wake for, the end of a hold), or nil when only a settle can free it (the cap:
-- the flow hash then says a claim is waiting). Also returns the limit that held due messages back ('' if none).
local function flow_next(f, head)
  if head == nil or f.gate == nil then return head, '' end
  local held = head <= f.now and f.reason or ''
  if f.gate == false then
    redis.call('HSET', f.key, 'waiting', '1')
    return nil, held
  end
  if f.gate > head then return f.gate, held end
  return head, held
end

-- A settle freed messages in flight: if a claim waits for the cap, wake the queue's consumers.
local function flow_freed(key, channel, now)
  if redis.call('HDEL', key, 'waiting') == 1 then
    redis.pcall('PUBLISH', channel, string.format('%d', now))
  end
end

-- Holds the claims of this queue (partition) until `until_ms` at least; returns the hold's end.
local function flow_hold(key, until_ms)
  local hold = tonumber(redis.call('HGET', key, 'hold') or '0')
  if until_ms > hold then
    redis.call('HSET', key, 'hold', string.format('%d', until_ms))
    hold = until_ms
  end
  return hold
end

-- What the flow hash `key` says of the queue (partition) at now (ms) / now_us, for stats.lua: the recorded limits
-- ('' none), messages claimed per second over the last FLOW_WINDOW_MS ('' when no claim with limits counted any),
-- how many due messages a claim could take now (-1: no bound; 0 under a hold or at the cap) and the end of an
-- active hold (ms, or nil). The same reads as flow_allow, with nothing written.
local function flow_view(key, inflight, now, now_us)
  local state = redis.call('HMGET', key, 'hold', 'limits', 'tat', 'claims')
  local rate = ''
  if state[4] then
    local w, cur, prev = flow_window(state[4], now)
    local claimed = prev * (FLOW_WINDOW_MS - (now - w * FLOW_WINDOW_MS)) / FLOW_WINDOW_MS + cur
    rate = string.format('%.3f', claimed * 1000 / FLOW_WINDOW_MS)
  end
  local hold = tonumber(state[1] or '0')
  if hold > now then return state[2] or '', rate, 0, hold end
  local room = -1
  local interval, tolerance, cap = string.match(state[2] or '', '^([^:]+):([^:]+):([^:]+)$')
  if interval then
    cap, interval, tolerance = tonumber(cap), tonumber(interval), tonumber(tolerance)
    if cap > 0 then room = math.max(0, cap - redis.call('ZCARD', inflight)) end
    if interval > 0 then
      local permits = math.max(0, (gcra_permits(interval, tolerance, tonumber(state[3] or '0'), now_us)))
      if room < 0 or permits < room then room = permits end
    end
  end
  return state[2] or '', rate, room, nil
end
