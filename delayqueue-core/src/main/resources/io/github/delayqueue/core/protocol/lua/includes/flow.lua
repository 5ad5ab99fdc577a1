-- Flow control of the claim: rate limit, cap on messages in flight, hold (claim.lua, settle.lua, hold.lua).
-- Its key, the queue's flow HASH (KEYS[11] of those scripts, in the queue's hash tag):
--   'tat'     the rate limit's theoretical arrival time (GCRA), microseconds on the Redis clock: one permit
--             becomes free at tat - tolerance; each message claimed moves it on by one interval
--   'hold'    claims hand nothing out before this time (ms, Redis clock): a handler said "slow down"
--   'waiting' present while a claim found the in-flight cap reached: the next settle publishes a wake-up
-- A hash (HGET, HSET, HDEL) as the paused key is, so an ACL that allows the other scripts allows this one.

-- The flow limits of one claim on the flow hash `key` and the in-flight set `inflight`. ARGV strings: interval
-- between permits (us, 0: no rate limit), how far the theoretical arrival time may run ahead of the clock (us:
-- (burst - 1) * interval), cap on messages in flight (0: none), and how long after the next permit a held-back
-- claim names as its next event (us: (gather - 1) * interval, gather half the burst rounded down, at least 1):
-- consumers then wake when that many permits are free, not one, so several instances do not all claim once per
-- permit, and the other half of the burst absorbs late wake-ups (at most the burst is ever free).
local function flow_open(key, inflight, interval, tolerance, max_inflight, gather, now, now_us)
  return { key = key, inflight = inflight, interval = tonumber(interval), tolerance = tonumber(tolerance),
    cap = tonumber(max_inflight), gather = tonumber(gather or '0'), now = now, now_us = now_us, gate = nil,
    reason = '', tat = nil }
end

-- How many of `wanted` due messages the limits let this claim take now (0 when a limit holds them all).
local function flow_allow(f, wanted)
  local hold = tonumber(redis.call('HGET', f.key, 'hold') or '0')
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
    local tat = math.max(tonumber(redis.call('HGET', f.key, 'tat') or '0'), f.now_us)
    f.tat = tat
    local permits = math.floor((f.now_us + f.tolerance + f.interval - tat) / f.interval)
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
  if f.interval > 0 and f.tat ~= nil and taken > 0 then
    local tat = f.tat + taken * f.interval
    redis.call('HSET', f.key, 'tat', string.format('%.0f', tat))
    if math.ceil((tat - f.tolerance) / 1000) > f.now then
      f.gate, f.reason = math.ceil((tat - f.tolerance + f.gather) / 1000), 'R'
    end
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
