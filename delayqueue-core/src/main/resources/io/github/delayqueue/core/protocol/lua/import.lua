-- Writes messages imported from another store (RDelayedQueueImporter), each at most once ever.
-- KEYS: the standard layout (includes/keys.lua), then 11 the import ledger (HASH id -> "1"): ids imported and not
--       yet confirmed removed from the source. The ledger is written in the same script as the message, so a
--       message is in the ledger exactly when it was written, even if it was delivered and acknowledged since.
-- ARGV: 1 wake channel, then triples: id, due ("@<epochMs>"), body
-- Returns: one flag per message: 1 written, 0 already imported (in the ledger) or live under that id.
--- @include "clock"
--- @include "format"
--- @include "wake"
--- @include "keys"
--- @include "lifecycle"
local now = now_ms()
local old_head = pending_head(KEYS[2])
for j = 3, #ARGV, 3 do -- checked before any write: a script that fails midway keeps what it wrote
  if string.byte(ARGV[j], 1) ~= 64 then return redis.error_reply('import needs a due instant (@<epochMs>), was ' .. ARGV[j]) end
end
local result = {}
local writes = {}
for j = 2, #ARGV, 3 do
  local id = ARGV[j]
  if redis.call('HEXISTS', KEYS[11], id) == 1 or redis.call('HEXISTS', KEYS[1], id) == 1 then
    result[#result + 1] = 0
  else
    result[#result + 1] = 1
    writes[#writes + 1] = j
  end
  redis.call('HSET', KEYS[11], id, '1')
end
if #writes == 0 then return result end
local seq = reserve_sequence(KEYS[9], #writes) - 1
local enqueued = encode8(now)
local earliest = nil
local scores, envelopes, prioritized = {}, {}, {}
for _, j in ipairs(writes) do
  local id, spec, body = ARGV[j], ARGV[j + 1], ARGV[j + 2]
  local due = tonumber(string.sub(spec, 2))
  seq = seq + 1
  local s = encode8(seq)
  envelopes[#envelopes + 1] = id
  envelopes[#envelopes + 1] = '2' .. s .. enqueued .. body
  local member = member_of(id, envelopes[#envelopes])
  if is_prioritized(member) or is_grouped(member) then
    prioritized[#prioritized + 1] = { member, due }
  else
    scores[#scores + 1] = string.format('%d', due)
    scores[#scores + 1] = member
  end
  if earliest == nil or due < earliest then earliest = due end
end
if #scores > 0 then redis.call('ZADD', KEYS[2], unpack(scores)) end
redis.call('HSET', KEYS[1], unpack(envelopes))
for _, p in ipairs(prioritized) do pend(queue_keys(KEYS), p[1], p[2], nil) end -- a body with a priority or a group
wake_if_earlier(ARGV[1], earliest, old_head)
return result
