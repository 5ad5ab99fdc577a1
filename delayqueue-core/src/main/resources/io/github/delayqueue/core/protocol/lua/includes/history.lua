-- The history of a queue (partition), kept only for consumers that ask for it (ConsumerOptions.keepHistory): a record
-- per message acknowledged or dead-lettered, so that a message's life can be looked up after the fact.
--   base .. 'history'     HASH  id -> the record, JSON written and read by Java only (protocol.HistoryRecord); a
--                               message sent again under the same id replaces its record when it is settled again
--   base .. 'history-at'  ZSET  id -> when it was settled (ms, Redis clock): the record's time, and the order in which
--                               records are trimmed
-- Written by settle.lua's K (ack) and E (dead letter) ops, all of a call at once, then trimmed to the count those ops
-- carry in the same call (at most the records written plus HISTORY_TRIM per call), and by age in the claim's
-- housekeeping stage (at most HISTORY_TRIM per call): never a scan, never an unbounded call. Each trim returns how many
-- it deleted, which the call's reply carries for the engine's listener. Only commands of the documented ACL rule set
-- (HSET, HDEL, ZADD, ZREM, ZRANGE, ZRANGEBYSCORE, ZCARD).
--- @include "keys"

local HISTORY_TRIM = 100

local function history_keys(keys)
  return keys.base .. 'history', keys.base .. 'history-at'
end

-- Keeps the records of one call: `fields` holds id, record, id, record, …, `scored` settled time, id, …, in the same
-- order; one HSET and one ZADD for the whole call (at most a settle batch: as many as its acks' deletes unpack). A
-- command per record cost the settle more than its records' writes did.
local function history_keep(keys, fields, scored)
  local records, at = history_keys(keys)
  redis.call('HSET', records, unpack(fields))
  redis.call('ZADD', at, unpack(scored))
end

-- Deletes the oldest records beyond `max`, at most `kept` + HISTORY_TRIM of them (`kept`: the records this call
-- wrote, at most a settle batch): a count lowered by a deploy is reached over several calls, each bounded, never one
-- call deleting (and unpacking) an unbounded number. Returns how many it deleted (for the engine's listener).
local function history_trim_count(keys, max, kept)
  local records, at = history_keys(keys)
  local over = math.min(redis.call('ZCARD', at) - max, kept + HISTORY_TRIM)
  if over <= 0 then return 0 end
  local oldest = redis.call('ZRANGE', at, 0, over - 1)
  redis.call('HDEL', records, unpack(oldest))
  redis.call('ZREM', at, unpack(oldest))
  return #oldest
end

-- Deletes records settled before `before` (ms), at most HISTORY_TRIM; returns how many it deleted (the claim's reply
-- carries it for the engine's listener, and for running the stage again at once)
local function history_trim_age(keys, before)
  local records, at = history_keys(keys)
  local old = redis.call('ZRANGEBYSCORE', at, '-inf', '(' .. before, 'LIMIT', 0, HISTORY_TRIM)
  if #old == 0 then return 0 end
  redis.call('HDEL', records, unpack(old))
  redis.call('ZREM', at, unpack(old))
  return #old
end
