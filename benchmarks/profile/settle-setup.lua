-- For a settle loop (docs/benchmarks.md, issue 37): every entry of ARGV from the second, "<op><attempt>:<member>", becomes a live
-- in-flight message (lease, attempt 1, envelope), so that settle.lua run right after it in the same script settles it.
local z, a, m = {}, {}, {}
for j = 2, #ARGV do
  local e = ARGV[j]
  local colon = string.find(e, ':', 2, true)
  local member = string.sub(e, colon + 1)
  local id = string.sub(member, 10)
  z[#z + 1] = '1795748322035'; z[#z + 1] = member
  a[#a + 1] = id; a[#a + 1] = '1'
  m[#m + 1] = id; m[#m + 1] = '2' .. string.sub(member, 2, 9) .. '--------0:"m-1-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"'
end
redis.call('ZADD', KEYS[3], unpack(z))
redis.call('HSET', KEYS[4], unpack(a))
redis.call('HSET', KEYS[1], unpack(m))
