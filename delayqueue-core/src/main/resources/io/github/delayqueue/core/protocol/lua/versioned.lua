-- Writes intents that carry a version (a transactional outbox's row number), each only if it is the newest.
-- KEYS: the standard layout (includes/keys.lua), then 11 versions HASH id -> highest version applied,
--       12 versions-at ZSET id -> when it was recorded (ms, Redis clock). Both exist only for ids written
--       through this script.
-- ARGV: 1 wake channel, 2 how long a version is kept (ms) after its last write, then per intent, in order:
--       "S", id, version, "1" replace / "0" if-absent, due ("+<delayMs>" or "@<epochMs>"), body
--       "C", id, version                      (cancel, as cancel.lua cancels: includes/cancelling.lua)
--       "R", id, version, due                 (reschedule a pending message)
-- Returns: one number per intent: 1 applied, 0 applied with nothing to do (if-absent found the id live or, for a
--          send with a dedup window, remembered after delivery,
--          cancel or reschedule found no message to act on), -1 superseded (a version as high or higher was
--          recorded: the intent, or a newer one, was applied already; nothing is written but the record's time).
-- Per message id, an intent is applied only if its version is above the one recorded for the id, so an older
-- intent replayed late (a relay, a slow after-commit write) never overwrites a newer one, and a cancelled id is
-- not brought back.
-- Every call writes (the record's time), so a WAIT after it also covers the write of an intent applied before.
-- Versions older than ARGV[2] are forgotten, at most max(100, 2 x intents) per call.
--- @include "clock"
--- @include "keys"
--- @include "format"
--- @include "wake"
--- @include "lifecycle"
--- @include "remember"
--- @include "groups"
--- @include "priorities"
--- @include "cancelling"
local queue = queue_keys(KEYS)
local now, now_us = clock()
local keep = tonumber(ARGV[2])
local expired = redis.call('ZRANGEBYSCORE', KEYS[12], '-inf', string.format('%d', now - keep), 'LIMIT', 0,
  math.max(100, #ARGV))
if #expired > 0 then
  redis.call('HDEL', KEYS[11], unpack(expired))
  redis.call('ZREM', KEYS[12], unpack(expired))
end
local function due_of(spec)
  if string.byte(spec, 1) == 64 then -- '@'
    return tonumber(string.sub(spec, 2))
  end
  return delay_base(now_us) + tonumber(string.sub(spec, 2))
end
local old_head = pending_head(KEYS[2])
local earliest = nil
local result = {}
local j = 3
while j <= #ARGV do
  local op, id, version = ARGV[j], ARGV[j + 1], tonumber(ARGV[j + 2])
  local width = (op == 'S' and 6) or (op == 'R' and 4) or 3
  local recorded = redis.call('HGET', KEYS[11], id)
  redis.call('ZADD', KEYS[12], now, id)
  if recorded and tonumber(recorded) >= version then
    result[#result + 1] = -1
  else
    redis.call('HSET', KEYS[11], id, ARGV[j + 2])
    local envelope = redis.call('HGET', KEYS[1], id)
    if op == 'S' then
      local window = window_of(ARGV[j + 5])
      if ARGV[j + 3] ~= '1' and (envelope or (window and is_remembered(queue, id))) then
        result[#result + 1] = 0 -- if-absent: the id is live, or remembered after delivery (a dedup window)
      else
        if envelope then forget(queue, id, member_of(id, envelope)) end
        local due = due_of(ARGV[j + 4])
        local fresh = '2' .. encode8(reserve_sequence(KEYS[9], 1)) .. encode8(now) .. ARGV[j + 5]
        redis.call('HSET', KEYS[1], id, fresh)
        pend(queue, member_of(id, fresh), string.format('%d', due), nil) -- its group's set, its priority's, or delayed
        note_window(queue, id, window)
        if earliest == nil or due < earliest then earliest = due end
        result[#result + 1] = 1
      end
    elseif op == 'C' then
      if envelope then
        cancel_live(queue, ARGV[1], queue.base .. 'flow', id, envelope) -- a running handler is interrupted too
        result[#result + 1] = 1
      else
        result[#result + 1] = 0
      end
    elseif op == 'R' then
      local member = envelope and member_of(id, envelope)
      if member and is_grouped(member) and group_pending_due(queue, member) then
        group_move(queue, member, due_of(ARGV[j + 3]))
        result[#result + 1] = 1
      elseif member and pending_score(queue, member) then
        local due = due_of(ARGV[j + 3])
        pend(queue, member, string.format('%d', due), nil)
        if earliest == nil or due < earliest then earliest = due end
        result[#result + 1] = 1
      else
        result[#result + 1] = 0
      end
    else
      return redis.error_reply('unknown intent ' .. tostring(op))
    end
  end
  j = j + width
end
if earliest then wake_if_earlier(ARGV[1], earliest, old_head) end
return result
