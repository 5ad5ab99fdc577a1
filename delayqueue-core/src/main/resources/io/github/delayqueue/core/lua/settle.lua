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
-- The fences of the whole batch are read with two variadic commands (ZMSCORE, HMGET), and acks are
-- deleted with variadic commands at the end: a batch holds at most one current delivery per id and
-- every op touches only its own id, so reading the fences up front is the same as reading them one by one.
local members, ids = {}, {}
for j = 2, #ARGV, 5 do
  members[#members + 1] = ARGV[j + 1]
  ids[#ids + 1] = id_of(ARGV[j + 1])
end
if #members == 0 then return result end
local leases = redis.call('ZMSCORE', KEYS[3], unpack(members))
local attempts = redis.call('HMGET', KEYS[4], unpack(ids))
local acked_members, acked_ids = {}, {}
for i, member in ipairs(members) do
  local j = 2 + (i - 1) * 5
  local op, attempt, id = ARGV[j], ARGV[j + 2], ids[i]
  if leases[i] and attempts[i] == attempt then
    if op == 'A' then
      acked_members[#acked_members + 1] = member
      acked_ids[#acked_ids + 1] = id
    elseif op == 'R' then
      local due = now + tonumber(ARGV[j + 3])
      redis.call('ZREM', KEYS[3], member)
      redis.call('ZADD', KEYS[2], due, member)
      redis.call('HSET', KEYS[5], id, ARGV[j + 4])
      if earliest == nil or due < earliest then earliest = due end
    else
      bury(id, member, now, attempt, ARGV[j + 4])
    end
    result[i] = 1
  else
    result[i] = 0
  end
end
if #acked_ids > 0 then
  -- what forget() does, for the whole batch
  redis.call('ZREM', KEYS[3], unpack(acked_members))
  redis.call('ZREM', KEYS[2], unpack(acked_members))
  redis.call('HDEL', KEYS[1], unpack(acked_ids))
  redis.call('HDEL', KEYS[4], unpack(acked_ids))
  redis.call('HDEL', KEYS[5], unpack(acked_ids))
end
if earliest ~= nil then wake_if_earlier(ARGV[1], earliest, old_head) end
return result
