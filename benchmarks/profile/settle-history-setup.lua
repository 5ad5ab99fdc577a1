-- For a settle loop with the history (docs/internals/benchmarks.md, "history: what keeping a history costs"): prepended
-- to settle.lua with its includes expanded, its `settle_open(KEYS, ARGV)` changed to `settle_open(KEYS, newargv)`
-- (Redis 7 does not let a script assign ARGV). KEYS: settle.lua's 11, then 12 a counter. Every op of ARGV from the
-- second, "a1:~", "A1:~" or "K1:<keep>:~" (a K followed by its record), gets a fresh member "~00000000<16 hex digits>"
-- made live in flight (lease, attempt 1, envelope), so each call settles new messages and a kept history is trimmed as
-- in a drain; arguments starting with '#' are dropped (to measure what an argument costs alone).
local n = 0
for j = 2, #ARGV do
  local op = string.sub(ARGV[j], 1, 1)
  if op == 'a' or op == 'A' or op == 'K' then n = n + 1 end
end
local base = redis.call('INCRBY', KEYS[12], n) - n
local newargv, z, a, m = {ARGV[1]}, {}, {}, {}
local k, j = 0, 2
while j <= #ARGV do
  local e = ARGV[j]
  local op = string.sub(e, 1, 1)
  if op == '#' then
    j = j + 1
  else
    k = k + 1
    local id = string.format('%016x', base + k)
    local member = '~00000000' .. id
    newargv[#newargv + 1] = string.sub(e, 1, string.find(e, '~', 1, true) - 1) .. member
    z[#z + 1] = '1795748322035'; z[#z + 1] = member
    a[#a + 1] = id; a[#a + 1] = '1'
    m[#m + 1] = id; m[#m + 1] = '2' .. string.sub(member, 2, 9) .. '--------0:"m-1-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"'
    if op == 'K' then newargv[#newargv + 1] = ARGV[j + 1]; j = j + 2 else j = j + 1 end
  end
end
redis.call('ZADD', KEYS[3], unpack(z))
redis.call('HSET', KEYS[4], unpack(a))
redis.call('HSET', KEYS[1], unpack(m))
