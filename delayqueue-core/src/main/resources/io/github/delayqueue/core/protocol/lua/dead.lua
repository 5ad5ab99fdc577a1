-- Dead-letter administration: lists, requeues or purges dead letters.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel, 2 op ("list", "requeue" or "purge"), 3 limit, 4 offset, then dead keys (none = the oldest
--       first, from position offset, up to limit).
-- Returns: for "list", quintuples dead key, dead-at, "<attempts>:<reason>", envelope, ''; for "requeue" and "purge",
--          the number requeued or deleted.
-- "requeue" puts a dead letter back in the delayed set under its id, due now, attempts reset; a dead letter whose
-- id is live again is skipped. "purge" deletes them.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "wake"
--- @include "dead_letters"
--- @include "groups"
local queue = queue_keys(KEYS)
local now = now_ms()
local op = ARGV[2]
local keys
if #ARGV > 4 then
  keys = {}
  for j = 5, #ARGV do keys[#keys + 1] = ARGV[j] end
else
  local offset = tonumber(ARGV[4])
  keys = redis.call('ZRANGE', KEYS[6], offset, offset + tonumber(ARGV[3]) - 1)
end
local out = {}
local count = 0
local old_head = pending_head(KEYS[2])
for _, key in ipairs(keys) do
  local dead_at = redis.call('ZSCORE', KEYS[6], key)
  if dead_at then
    local id = dead_id(key)
    if op == 'list' then
      out[#out + 1] = key
      out[#out + 1] = dead_at
      out[#out + 1] = redis.call('HGET', KEYS[8], key) or ''
      out[#out + 1] = redis.call('HGET', KEYS[7], key) or ''
      out[#out + 1] = ''
    elseif op == 'purge' or redis.call('HEXISTS', KEYS[1], id) == 0 then
      local envelope = redis.call('HGET', KEYS[7], key)
      delete_dead(queue, { key })
      if op == 'requeue' and envelope then
        -- a new sequence number in the envelope's own format; the rest (enqueued time, body) is kept
        local fresh = renumbered(envelope, reserve_sequence(KEYS[9], 1))
        redis.call('HSET', KEYS[1], id, fresh)
        local member = member_of(id, fresh)
        pend(queue, member, now, now)
      end
      count = count + 1
    end
  end
end
if op == 'list' then return out end
if op == 'requeue' and count > 0 then wake_if_earlier(ARGV[1], now, old_head) end
return count
