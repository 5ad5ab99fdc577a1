-- Checks, and on first use records, the partition count of a queue (see Partitions.java).
-- KEYS (not the standard layout but the unpartitioned queue's, in its own slot):
--   1 partitions  HASH  'count' -> the count, written by the first client that uses the queue (a hash, so that the
--                       ACL rule set of docs/redis-layout.md covers it)
--   2 delayed, 3 inflight, 4 dead: of the queue's one-partition layout (a live message is in delayed or inflight)
--   5 schedule-next: the one-partition layout's schedules (schedule.lua: a paused one has no tick in delayed)
-- ARGV: 1 the count this client is configured with.
-- Returns: '' when the count matches (or was recorded now), the recorded count when it differs,
--          'unpartitioned' when the queue holds messages in the one-partition layout and the client asks for more, and
--          'schedules:<count>:<up to 10 ids, comma-separated>' when it holds schedules there (ids hold no ',').
-- It includes nothing: it runs on keys of its own and needs neither the clock nor the message helpers.
local wanted = ARGV[1]
local recorded = redis.call('HGET', KEYS[1], 'count')
if recorded then
  if recorded == wanted then return '' end
  return recorded
end
-- One partition is the layout of a queue with no record. It is recorded all the same: a client with more partitions,
-- started later while this one still writes the one-partition keys, must be refused rather than strand its messages.
if wanted == '1' then
  redis.call('HSET', KEYS[1], 'count', wanted)
  return ''
end
for i = 2, 4 do
  if redis.call('ZCARD', KEYS[i]) > 0 then return 'unpartitioned' end
end
local scheduled = redis.call('ZCARD', KEYS[5])
if scheduled > 0 then
  return 'schedules:' .. scheduled .. ':' .. table.concat(redis.call('ZRANGE', KEYS[5], 0, 9), ',')
end
redis.call('HSET', KEYS[1], 'count', wanted)
return ''
