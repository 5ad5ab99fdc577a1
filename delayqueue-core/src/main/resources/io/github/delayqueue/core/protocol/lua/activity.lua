-- Adds one instance's activity counts to a queue's minute hashes, or reads the last minutes (redis-layout.md).
-- KEYS: 1 the queue's activity base, <prefix>:{<tag of partition 0>}:activity; the minute hashes are
--       <base>:<minute>, <minute> the minute's number since the epoch of the Redis clock, in the same hash slot.
--       Each holds handled, retried, dead, started (handlers started), late_sum and late_max (their lateness, ms),
--       summed over the instances that consume the queue.
-- ARGV: 1 op, "flush" or "read".
--   flush: 2 how long a minute hash is kept after its minute ends (ms); then groups of seven, one per minute:
--          minute, handled, retried, dead, started, late_sum, late_max. Sums are added with HINCRBY (zeros skipped),
--          late_max keeps the larger; each hash written expires that long after its minute ends.
--   read:  2 how many minutes, the current one last.
-- Returns: flush: {the Redis clock (ms)}, which the instance files its next events under; read: the Redis clock
--   (ms), then per minute, the oldest first, its six fields (empty where nothing happened).
--- @include "clock"
local FIELDS = {'handled', 'retried', 'dead', 'started', 'late_sum', 'late_max'}
local now = now_ms()
local base = KEYS[1] .. ':'
if ARGV[1] == 'flush' then
  local keep = tonumber(ARGV[2])
  for i = 3, #ARGV, 7 do
    local minute = tonumber(ARGV[i])
    local ttl = (minute + 1) * 60000 + keep - now
    if ttl > 0 then
      local key = base .. ARGV[i]
      local wrote = false
      for f = 1, 5 do
        local n = tonumber(ARGV[i + f])
        if n ~= 0 then
          redis.call('HINCRBY', key, FIELDS[f], n)
          wrote = true
        end
      end
      local late_max = tonumber(ARGV[i + 6])
      if wrote and late_max > (tonumber(redis.call('HGET', key, 'late_max')) or -1) then
        redis.call('HSET', key, 'late_max', late_max)
      end
      if wrote then redis.call('PEXPIRE', key, ttl) end
    end
  end
  return {now}
end
if ARGV[1] == 'read' then
  local count = tonumber(ARGV[2])
  local current = math.floor(now / 60000)
  local out = {now}
  for minute = current - count + 1, current do
    local values = redis.call('HMGET', base .. string.format('%d', minute), unpack(FIELDS))
    for f = 1, 6 do out[#out + 1] = values[f] or '' end
  end
  return out
end
return redis.error_reply('activity.lua: unknown op ' .. tostring(ARGV[1]))
