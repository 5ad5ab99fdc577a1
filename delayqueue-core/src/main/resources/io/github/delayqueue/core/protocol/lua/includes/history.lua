-- The history of a queue (partition), kept only for consumers that ask for it (ConsumerOptions.keepHistory): a record
-- per message acknowledged or dead-lettered, so that a message's life can be looked up after the fact.
--   base .. 'history'     HASH  id -> the record, JSON written and read by Java only (protocol.HistoryRecord); a
--                               message sent again under the same id replaces its record when it is settled again
--   base .. 'history-at'  ZSET  id -> when it was settled (ms, Redis clock): the record's time, and the order in which
--                               records are trimmed
-- While a message is in flight its running record, once the engine wrote one (running.lua: a consumer that keeps the
-- history writes it at the delivery's first lease extension or first progress report, whichever comes first, so that
-- quick deliveries cost nothing; in the records hash only, not in history-at), says where and since when it runs:
-- {"v":1,"o":"running","d":<due ms>,"c":<claimed ms>,"a":<attempt>,"i":"<instance>","t":0}, and then
-- ',"p":<progress JSON>' before its closing brace once the handler reported progress. The settle's record replaces it; a cancel marks it cancelled
-- (history_cancelled); one left by a lease that ran out is replaced by the next claim's, or deleted when the claim
-- dead-letters or drops the message instead (history_drop_running), or by a cancel. A running record left behind
-- otherwise (the message then settled by a consumer that keeps no history) stays until the id is claimed again.
-- Written by settle.lua's K (ack) and E (dead letter) ops (all of a call at once), running.lua and cancels; trimmed to the count the K and E ops carry in the same call (at most the records written
-- plus HISTORY_TRIM per call), and by age in the claim's housekeeping stage (at most HISTORY_TRIM per call): never a
-- scan, never an unbounded call. Each trim returns how many it deleted, which the call's reply carries for the
-- engine's listener. Read by peek.lua's 'status' (one id) and recent.lua (the newest records, history_page).
-- Only commands of the documented ACL rule set (HSET, HGET, HMGET, HDEL, ZADD, ZREM, ZRANGE (with REV to read newest
-- first), ZRANGEBYSCORE, ZSCORE, ZCARD).
--- @include "keys"
--- @include "lifecycle"

local HISTORY_TRIM = 100

local function history_keys(keys)
  return keys.base .. 'history', keys.base .. 'history-at'
end

-- The attempt a running record is of, read from its fixed head; nil for any other record
local function running_attempt(record)
  return string.match(record, '^{"v":1,"o":"running","d":%d+,"c":%d+,"a":(%d+),')
end

-- A claim (of a consumer that keeps the history) dead-letters or drops message `id` without settling it (its lease
-- ran out on its last attempt, or it expired): the running record an earlier delivery left is deleted, as nothing
-- will replace it. One HGET, on those paths only
local function history_drop_running(c, id)
  if c.hist_inst == nil then return end
  local records = history_keys(c.keys)
  local record = redis.call('HGET', records, id)
  if record and running_attempt(record) then redis.call('HDEL', records, id) end
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

-- Writes the running record of `id` for its delivery `member`, attempt `attempt`: `record` as the engine wrote it
-- (protocol.HistoryRecord.running: {"v":1,"o":"running",...,"t":0}), with ',"p":<progress>' before its closing brace
-- when `progress` is not empty; only while that delivery is the message's current one (lifecycle.lua's is_current:
-- in flight, and its attempt the latest). Returns 1 if it was written, else 0
local function history_running(keys, id, member, attempt, record, progress)
  if not is_current(keys, id, member, attempt) then return 0 end
  if progress ~= '' then record = string.sub(record, 1, -2) .. ',"p":' .. progress .. '}' end
  redis.call('HSET', history_keys(keys), id, record)
  return 1
end

-- A cancel of `id` (includes/cancelling.lua) whose delivery count is `attempts`: its running record, if it has one of
-- that delivery (a consumer that keeps the history claimed it, and it was not claimed again, dead-lettered and
-- requeued, or handed back since), becomes a cancelled one, its instance and claim kept and `t` the time since the
-- claim; settled `now`. A message no such consumer claimed gets no record, so that a queue whose consumers keep no
-- history (or no longer do) never grows one. One HGET for a message without a running record
local function history_cancelled(keys, id, attempts, now)
  local records, at = history_keys(keys)
  local record = redis.call('HGET', records, id)
  if not record then return end
  local of = running_attempt(record)
  if of == nil then return end -- a settled record of an earlier send under the id: kept
  if attempts == nil or of ~= attempts then
    redis.call('HDEL', records, id) -- a running record left by an earlier delivery: the message is gone now
    return
  end
  local claimed = tonumber(string.match(record, '^{"v":1,"o":"running","d":%d+,"c":(%d+),')) or now
  local cut = string.find(record, ',"t":0', 1, true)
  if not cut then return end
  redis.call('HSET', records, id, '{"v":1,"o":"cancelled",' .. string.sub(record, 22, cut - 1) .. ',"t":'
    .. string.format('%d', math.max(0, now - claimed)) .. string.sub(record, cut + 6))
  redis.call('ZADD', at, now, id)
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
