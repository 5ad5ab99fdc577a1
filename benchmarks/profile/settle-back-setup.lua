-- For a loop of hand-backs or laters (docs/benchmarks.md, h-fence): every entry of ARGV from the second,
-- "<H or L><attempt>:<due or delay>:<member>", becomes a live in-flight message (lease, attempt 1, envelope), and the
-- delayed set is emptied (a renumbering settle puts each back under a new member, which would pile up there), so that
-- settle.lua run right after it in the same script settles them all.
redis.call('DEL', KEYS[2])
local z, a, m = {}, {}, {}
for j = 2, #ARGV do
  local e = ARGV[j]
  local colon = string.find(e, ':', 2, true)
  local second = string.find(e, ':', colon + 1, true)
  local member = string.sub(e, second + 1)
  local id = string.sub(member, 10)
  z[#z + 1] = '1795748322035'; z[#z + 1] = member
  a[#a + 1] = id; a[#a + 1] = '1'
  m[#m + 1] = id; m[#m + 1] = '2' .. string.sub(member, 2, 9) .. '--------0:"m-1-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"'
end
redis.call('ZADD', KEYS[3], unpack(z))
redis.call('HSET', KEYS[4], unpack(a))
redis.call('HSET', KEYS[1], unpack(m))
