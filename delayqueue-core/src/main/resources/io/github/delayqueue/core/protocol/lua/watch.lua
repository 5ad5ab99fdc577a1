-- Registers an instance for the turns at checking idle queues (the engine's Watch), or removes it.
-- KEYS: 1 instances  ZSET  instance id -> when its registration lapses (ms, Redis clock)
--       2 targets    HASH  instance id -> the queues (partitions) it consumes, their delayed keys one per line;
--                          '~generation' -> how many times the registry changed (an instance came, went or changed
--                          its queues), so that a reader fetches the lists again only then
--       Both carry the hash tag {~watch}, which no queue name can take.
-- ARGV: 1 op: 'beat' or 'leave', 2 the instance's id, 3 (beat) how long its registration lasts (ms), 4 (beat) its
--       queues, as stored in targets
-- Each instance beats every few seconds with the queues it consumes, and reads who else is there. Every call first
-- deletes the registrations that lapsed (an instance that stopped without leaving).
-- Returns: now in microseconds (Redis clock), the generation, then the ids of the instances registered.
-- Commands are those of the other scripts (ZRANGE, ZADD, ZREM, HGET, HSET, HDEL, TIME): the documented ACL allows them.
--- @include "clock"
local now, now_us = clock()
local changed = false
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], '-inf', '(' .. now, 'BYSCORE')) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  changed = true
end
if ARGV[1] == 'leave' then
  if redis.call('ZREM', KEYS[1], ARGV[2]) == 1 then changed = true end
  redis.call('HDEL', KEYS[2], ARGV[2])
elseif ARGV[1] == 'beat' then
  if redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2]) == 1 then changed = true end
  if redis.call('HGET', KEYS[2], ARGV[2]) ~= ARGV[4] then
    redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
    changed = true
  end
else
  return redis.error_reply('watch.lua: unknown op ' .. tostring(ARGV[1]))
end
local generation = tonumber(redis.call('HGET', KEYS[2], '~generation') or '0')
if changed then
  generation = generation + 1
  redis.call('HSET', KEYS[2], '~generation', string.format('%d', generation))
end
local reply = { string.format('%d', now_us), string.format('%d', generation) }
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do reply[#reply + 1] = id end
return reply
