-- The history of a queue (partition), kept only for consumers that ask for it (ConsumerOptions.keepHistory): a record
-- per message acknowledged or dead-lettered, so that a message's life can be looked up after the fact.
--   base .. 'history'     HASH  id -> the record, JSON written and read by Java only (protocol.HistoryRecord); a
--                               message sent again under the same id replaces its record when it is settled again
--   base .. 'history-at'  ZSET  id -> when it was settled (ms, Redis clock): the record's time, and the order in which
--                               records are trimmed
-- Written by settle.lua's K (ack) and E (dead letter) ops, trimmed to the count those ops carry in the same call (at
-- most the records written plus HISTORY_TRIM per call), and by age in the claim's housekeeping stage (at most
-- HISTORY_TRIM per call): never a scan, never an unbounded call. Read by peek.lua's 'status' (one id) and recent.lua
-- (the newest records, history_page). Only commands of the documented ACL rule set (HSET, HGET, HMGET, HDEL, ZADD,
-- ZREM, ZRANGE (with REV to read newest first), ZRANGEBYSCORE, ZSCORE, ZCARD).
--- @include "keys"

local HISTORY_TRIM = 100

local function history_keys(keys)
  return keys.base .. 'history', keys.base .. 'history-at'
end

-- Keeps `record` for `id`, settled at `now`
local function history_keep(keys, id, now, record)
  local records, at = history_keys(keys)
  redis.call('HSET', records, id, record)
  redis.call('ZADD', at, now, id)
end

-- Deletes the oldest records beyond `max`, at most `kept` + HISTORY_TRIM of them (`kept`: the records this call
-- wrote, at most a settle batch): a count lowered by a deploy is reached over several calls, each bounded, never one
-- call deleting (and unpacking) an unbounded number
local function history_trim_count(keys, max, kept)
  local records, at = history_keys(keys)
  local over = math.min(redis.call('ZCARD', at) - max, kept + HISTORY_TRIM)
  if over <= 0 then return end
  local oldest = redis.call('ZRANGE', at, 0, over - 1)
  redis.call('HDEL', records, unpack(oldest))
  redis.call('ZREM', at, unpack(oldest))
end

-- Deletes records settled before `before` (ms), at most HISTORY_TRIM; returns how many it deleted
local function history_trim_age(keys, before)
  local records, at = history_keys(keys)
  local old = redis.call('ZRANGEBYSCORE', at, '-inf', '(' .. before, 'LIMIT', 0, HISTORY_TRIM)
  if #old == 0 then return 0 end
  redis.call('HDEL', records, unpack(old))
  redis.call('ZREM', at, unpack(old))
  return #old
end

-- The records from rank `offset` (0: the latest settled) newest first, at most `limit` (the caller bounds it): how
-- many records the history holds, then three fields per record: id, when it was settled (ms), the record. An id whose
-- record is gone (a trim between the two reads cannot happen inside a script; a hash edited by hand can) is skipped.
-- Read-only, O(log N + limit)
local function history_page(keys, offset, limit)
  local records, at = history_keys(keys)
  local out = { redis.call('ZCARD', at) }
  local page = redis.call('ZRANGE', at, offset, offset + limit - 1, 'REV', 'WITHSCORES')
  if #page == 0 then return out end
  local ids = {}
  for i = 1, #page, 2 do ids[#ids + 1] = page[i] end
  local texts = redis.call('HMGET', records, unpack(ids))
  for i = 1, #ids do
    if texts[i] then
      out[#out + 1] = ids[i]
      out[#out + 1] = string.format('%d', tonumber(page[2 * i]))
      out[#out + 1] = texts[i]
    end
  end
  return out
end
