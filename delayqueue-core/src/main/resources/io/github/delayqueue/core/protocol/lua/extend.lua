-- Extends the leases of running deliveries.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel (unused), 2 lease ms, then pairs: member, attempt
-- Returns: one string with a flag character per pair: 1 extended, 0 the lease was already lost.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "lifecycle"
local queue = queue_keys(KEYS)
local deadline = string.format('%d', now_ms() + tonumber(ARGV[2]))
local result = {}
for j = 3, #ARGV, 2 do
  local member, attempt = ARGV[j], ARGV[j + 1]
  if is_current(queue, id_of(member), member, attempt) then
    redis.call('ZADD', KEYS[3], 'XX', deadline, member)
    result[#result + 1] = '1'
  else
    result[#result + 1] = '0'
  end
end
return table.concat(result)
