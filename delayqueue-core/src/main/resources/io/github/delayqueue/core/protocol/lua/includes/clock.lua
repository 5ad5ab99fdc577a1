-- The Redis clock: every due time, lease deadline and dead-letter time is read from the server's TIME, so
-- producers and consumers on skewed hosts agree.
-- Effects replication: a script that reads TIME and then writes must replicate its writes, not itself.
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
