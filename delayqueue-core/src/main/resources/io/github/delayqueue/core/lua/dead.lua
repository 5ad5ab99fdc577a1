-- Dead-letter administration. ARGV: 1 wake channel, 2 op, 3 limit, 4 offset, then ids (none = the oldest
-- first, from position offset, up to limit).
--   op "list":    returns quintuples id, dead-at, "<attempts>:<reason>", envelope, ''
--   op "requeue": back to the delayed set, due now, attempts reset; an id that is live again is skipped.
--                 Returns the number requeued.
--   op "purge":   deletes them. Returns the number deleted.
local now = now_ms()
local op = ARGV[2]
local ids
if #ARGV > 4 then
  ids = {}
  for j = 5, #ARGV do ids[#ids + 1] = ARGV[j] end
else
  local offset = tonumber(ARGV[4])
  ids = redis.call('ZRANGE', KEYS[6], offset, offset + tonumber(ARGV[3]) - 1)
end
local out = {}
local count = 0
local old_head = head_score(KEYS[2])
for _, id in ipairs(ids) do
  local dead_at = redis.call('ZSCORE', KEYS[6], id)
  if dead_at then
    if op == 'list' then
      out[#out + 1] = id
      out[#out + 1] = dead_at
      out[#out + 1] = redis.call('HGET', KEYS[8], id) or ''
      out[#out + 1] = redis.call('HGET', KEYS[7], id) or ''
      out[#out + 1] = ''
    elseif op == 'purge' or redis.call('HEXISTS', KEYS[1], id) == 0 then
      local envelope = redis.call('HGET', KEYS[7], id)
      redis.call('ZREM', KEYS[6], id)
      redis.call('HDEL', KEYS[7], id)
      redis.call('HDEL', KEYS[8], id)
      if op == 'requeue' and envelope then
        -- a new sequence number in the envelope's own format; the rest (enqueued time, body) is kept
        local seq = reserve_sequence(1)
        local fresh
        if string.byte(envelope, 1) == 50 then
          fresh = '2' .. encode8(seq) .. string.sub(envelope, 10)
        else
          fresh = '1:' .. string.format('%012x', seq) .. string.sub(envelope, 15)
        end
        redis.call('HSET', KEYS[1], id, fresh)
        redis.call('ZADD', KEYS[2], now, member_of(id, fresh))
      end
      count = count + 1
    end
  end
end
if op == 'list' then return out end
if op == 'requeue' and count > 0 then wake_if_earlier(ARGV[1], now, old_head) end
return count
