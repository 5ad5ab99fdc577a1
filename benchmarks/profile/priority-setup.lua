-- For the candidate-stage loop of a queue with priorities (docs/internals/benchmarks.md, "priorities"), on a Redis of
-- its own (it deletes the keys delayed and p:0 to p:9): ARGV[1] members of each of the levels 0 to 9, due over the
-- 50 s before now in turn (level i % 10), as the priorities scenario's backlog: level 4 in delayed ('~' members), the
-- others in p:<level> ('^<level>' members) with their markers '^<level>' at -inf in delayed. Then run
-- priority-candidates.lua against them (it writes nothing, so the backlog stays as it is between calls).
local n = tonumber(ARGV[1])
redis.call('DEL', 'delayed')
for l = 0, 9 do redis.call('DEL', 'p:' .. l) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000
local batch = {}
for l = 0, 9 do batch[l] = {} end
for i = 0, 10 * n - 1 do
  local l = i % 10
  local due = string.format('%d', now - 50000 + math.floor(i * 50000 / (10 * n)))
  local seq = string.format('%08d', i)
  local id = string.format('%016x', i)
  local b = batch[l]
  b[#b + 1] = due
  if l == 4 then b[#b + 1] = '~' .. seq .. id else b[#b + 1] = '^' .. l .. seq .. id end
  if #b >= 1000 then
    redis.call('ZADD', l == 4 and 'delayed' or ('p:' .. l), unpack(b))
    batch[l] = {}
  end
end
for l = 0, 9 do
  if #batch[l] > 0 then redis.call('ZADD', l == 4 and 'delayed' or ('p:' .. l), unpack(batch[l])) end
  if l ~= 4 then redis.call('ZADD', 'delayed', '-inf', '^' .. l) end
end
return redis.call('ZCARD', 'delayed')
