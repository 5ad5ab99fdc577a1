-- Shared prelude, prepended to every script of delayqueue when it is loaded.
--
-- KEYS (the same ten for every script, and import.lua's ledger eleventh; all share the queue's hash tag):
--   1 messages  HASH  id -> envelope "2<seq8><enqueued8><body>" (format 1, "1:<seq12>:<enqueuedMs>:<body>", is still read)
--   2 delayed   ZSET  member -> due time (ms, Redis clock)
--   3 inflight  ZSET  member -> lease deadline (ms, Redis clock)
--   4 attempts  HASH  id -> deliveries so far (absent until first claim); also the fencing token
--   5 errors    HASH  id -> last handler error (absent until a failure)
--   6 dead      ZSET  dead key -> time it was dead-lettered
--   7 deadmsg   HASH  dead key -> envelope of a dead letter
--   8 deaderr   HASH  dead key -> "<attempts>:<reason>"
--   9 sequence  STRING counter giving every send a sequence number
--  10 paused    HASH  'since' -> when the queue was paused (ms, Redis clock); absent while it is not. A hash
--                     rather than a string so that the ACL rule set of earlier releases (HSET, HDEL, HEXISTS,
--                     no SET/GET/DEL) still covers it
-- A dead key is "\31<seq8><id>", <seq8> a number of the send counter taken when it died, so an id that
-- dies twice leaves two dead letters (releases before 2026-11-24 keyed a dead letter by its bare id; an id
-- never holds a control character, so such keys are told apart by their first byte and still read).
-- A ZSET member is "~<seq8><id>" (format 1: "<seq12><id>"): equal due times are claimed in send order
-- because a ZSET orders equal scores by member bytes. <seq8> and <enqueued8> are numbers written with 8
-- digits of an alphabet in ASCII order, so byte order is numeric order; the leading '~' sorts after
-- every hex digit, so format-1 members left from an older release still come first.
if redis.replicate_commands then redis.replicate_commands() end

-- The Redis clock: milliseconds (the unit of every due time and lease) and microseconds
local function clock()
  local t = redis.call('TIME')
  local seconds, micros = tonumber(t[1]), tonumber(t[2])
  return seconds * 1000 + math.floor(micros / 1000), seconds * 1000000 + micros
end

local function now_ms()
  return (clock())
end

-- What a relative due time counts from: the Redis clock rounded UP to the millisecond. A claim takes
-- what is due at the clock rounded down, so a send received at 1000.4 ms with a 10 ms delay is due at
-- 1011 and cannot be claimed before 1010.4 ms (counted from 1000 it could be, at 1010.0).
local function delay_base(now_us)
  return math.floor((now_us + 999) / 1000)
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

local function id_of(member)
  if string.byte(member, 1) == 126 then return string.sub(member, 10) end
  return string.sub(member, 13)
end

local function member_of(id, envelope)
  if string.byte(envelope, 1) == 50 then return '~' .. string.sub(envelope, 2, 9) .. id end
  return string.sub(envelope, 3, 14) .. id
end

local function head_score(key)
  local h = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if h[2] then return tonumber(h[2]) end
  return nil
end

-- Reserves n sequence numbers; returns the first
local function reserve_sequence(n)
  return redis.call('INCRBY', KEYS[9], n) - n + 1
end

-- Wakes sleeping consumers when a message becomes due before the current head. pcall: a user whose ACL
-- denies the channel (Redis 7's default 'acl-pubsub-default resetchannels') gets an error from PUBLISH
-- after the script's writes; a wake-up is an optimisation, so it must never fail a write that was made.
-- Consumers of such a user fall back to their timed poll.
local function wake_if_earlier(channel, due, old_head)
  if old_head == nil or due < old_head then
    redis.pcall('PUBLISH', channel, string.format('%d', due))
  end
end

local function forget(id, member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('ZREM', KEYS[3], member)
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('HDEL', KEYS[5], id)
end

-- Moves a live message to the dead letters with its reason, under a dead key of its own.
local function bury(id, member, now, attempts, reason)
  local envelope = redis.call('HGET', KEYS[1], id)
  forget(id, member)
  if envelope then
    local key = '\31' .. encode8(reserve_sequence(1)) .. id
    redis.call('HSET', KEYS[7], key, envelope)
    redis.call('HSET', KEYS[8], key, attempts .. ':' .. reason)
    redis.call('ZADD', KEYS[6], now, key)
  end
end

-- The message id of a dead key (a bare id in releases before 2026-11-24)
local function dead_id(key)
  if string.byte(key, 1) == 31 then return string.sub(key, 10) end
  return key
end

-- Deletes dead letters by dead key (variadic: one command per key set, whatever the count)
local function delete_dead(keys)
  if #keys == 0 then return end
  redis.call('ZREM', KEYS[6], unpack(keys))
  redis.call('HDEL', KEYS[7], unpack(keys))
  redis.call('HDEL', KEYS[8], unpack(keys))
end

-- A delivery is current only while its member is in flight and its attempt number is the latest.
local function is_current(id, member, attempt)
  return redis.call('ZSCORE', KEYS[3], member) and redis.call('HGET', KEYS[4], id) == attempt
end
