-- Settles finished deliveries in one round trip.
-- ARGV: 1 wake channel, then quintuples: op, member, attempt, delay ms, text
--   op "A" ack: the message is done and deleted
--   op "R" retry: back to the delayed set in <delay ms> with <text> as its last error
--   op "D" dead: to the dead letters with <text> as the reason
-- Every op is fenced: it applies only if the delivery is still the current one.
-- Returns one flag per op: 1 applied, 0 stale (lease lost to a newer delivery, or message gone).
local now = now_ms()
local old_head = head_score(KEYS[2])
local earliest = nil
local result = {}
for j = 2, #ARGV, 5 do
  local op, member, attempt = ARGV[j], ARGV[j + 1], ARGV[j + 2]
  local id = id_of(member)
  if is_current(id, member, attempt) then
    if op == 'A' then
      forget(id, member)
    elseif op == 'R' then
      local due = now + tonumber(ARGV[j + 3])
      redis.call('ZREM', KEYS[3], member)
      redis.call('ZADD', KEYS[2], due, member)
      redis.call('HSET', KEYS[5], id, ARGV[j + 4])
      if earliest == nil or due < earliest then earliest = due end
    else
      bury(id, member, now, attempt, ARGV[j + 4])
    end
    result[#result + 1] = 1
  else
    result[#result + 1] = 0
  end
end
if earliest ~= nil then wake_if_earlier(ARGV[1], earliest, old_head) end
return result
