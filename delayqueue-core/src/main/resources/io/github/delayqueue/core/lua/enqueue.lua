-- ARGV: 1 wake channel, 2 "1" replace existing ids / "0" keep them (if-absent),
--       then triples: id, due ("+<delayMs>" from the Redis clock or "@<epochMs>"), body
-- Returns one flag per message: 1 written, 0 kept the existing message (if-absent).
local now = now_ms()
local replace = ARGV[2] == '1'
local old_head = head_score(KEYS[2])
local earliest = nil
local result = {}
for j = 3, #ARGV, 3 do
  local id, spec, body = ARGV[j], ARGV[j + 1], ARGV[j + 2]
  local existing = redis.call('HGET', KEYS[1], id)
  if existing and not replace then
    result[#result + 1] = 0
  else
    if existing then forget(id, member_of(id, existing)) end
    local due
    if string.sub(spec, 1, 1) == '@' then
      due = tonumber(string.sub(spec, 2))
    else
      due = now + tonumber(string.sub(spec, 2))
    end
    local seq = next_sequence()
    redis.call('ZADD', KEYS[2], due, seq .. id)
    redis.call('HSET', KEYS[1], id, '1:' .. seq .. ':' .. string.format('%d', now) .. ':' .. body)
    if earliest == nil or due < earliest then earliest = due end
    result[#result + 1] = 1
  end
end
if earliest ~= nil then wake_if_earlier(ARGV[1], earliest, old_head) end
return result
