-- The history's own part of a settle, alone (docs/internals/benchmarks.md, "history: what keeping a history costs"):
-- ARGV[2] new records a call (ids order-<n> from the counter KEYS[3]) written to KEYS[1] (hash) and KEYS[2] (sorted
-- set), then the count trim to ARGV[3]. ARGV[1]: 'none' builds them and writes nothing (the script's own cost), 'each'
-- writes a record at a time (HSET, ZADD), 'batch' a call's records with one HSET and one ZADD, 'notrim' the same
-- without the trim, 'rank' trims the sorted set with ZREMRANGEBYRANK instead of ZREM.
local v, n, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local base = redis.call('INCRBY', KEYS[3], n) - n
local now = 1795748322035 + base
local rec = '{"v":1,"o":"completed","d":1795748322035,"c":1795748322036,"a":1,"i":"123456@bench-host-01","t":3}'
local fields, scored, ids = {}, {}, {}
for i = 1, n do
  local id = 'order-' .. (base + i)
  ids[i] = id
  fields[2 * i - 1], fields[2 * i] = id, rec
  scored[2 * i - 1], scored[2 * i] = now, id
end
if v == 'none' then return 0 end
if v == 'each' then
  for i = 1, n do
    redis.call('HSET', KEYS[1], ids[i], rec)
    redis.call('ZADD', KEYS[2], now, ids[i])
  end
else
  redis.call('HSET', KEYS[1], unpack(fields))
  redis.call('ZADD', KEYS[2], unpack(scored))
end
if v == 'notrim' then return 0 end
local over = math.min(redis.call('ZCARD', KEYS[2]) - max, n + 100)
if over <= 0 then return 0 end
local oldest = redis.call('ZRANGE', KEYS[2], 0, over - 1)
redis.call('HDEL', KEYS[1], unpack(oldest))
if v == 'rank' then
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
else
  redis.call('ZREM', KEYS[2], unpack(oldest))
end
return #oldest
