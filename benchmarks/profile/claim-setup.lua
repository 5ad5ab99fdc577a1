-- For a claim loop (docs/benchmarks.md, issue 37): 256 messages due a second ago in the delayed set, with envelopes, and nothing in
-- flight or attempted (DEL: run it on a Redis of its own), so that claim.lua run right after it in the same script claims 256.
redis.call('DEL', KEYS[3], KEYS[4])
local t = redis.call('TIME')
local due = tostring(tonumber(t[1]) * 1000 - 1000)
local z, m = {}, {}
for i = 1, 256 do
  local id = string.format('%016x', i)
  local seq = string.format('%08d', i)
  z[#z + 1] = due; z[#z + 1] = '~' .. seq .. id
  m[#m + 1] = id; m[#m + 1] = '2' .. seq .. '--------0:"m-1-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"'
end
redis.call('ZADD', KEYS[2], unpack(z))
redis.call('HSET', KEYS[1], unpack(m))
