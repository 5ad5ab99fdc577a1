-- Moves a pending (not in-flight) message to a new due time.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel, 2 id, 3 due ("+<delayMs>" or "@<epochMs>").
-- Returns: 1 if moved, 0 if the message is gone or in flight.
--- @include "clock"
--- @include "format"
--- @include "wake"
--- @include "keys"
--- @include "lifecycle"
local id = ARGV[2]
local envelope = redis.call('HGET', KEYS[1], id)
if not envelope then return 0 end
local member = member_of(id, envelope)
local grouped = is_grouped(member) -- pending in its group's set (includes/groups.lua)
if grouped then
  if not group_pending_due(queue_keys(KEYS), member) then return 0 end
elseif not pending_score(queue_keys(KEYS), member) then return 0 end
local due
if string.sub(ARGV[3], 1, 1) == '@' then
  due = tonumber(string.sub(ARGV[3], 2))
else
  local _, now_us = clock()
  due = delay_base(now_us) + tonumber(string.sub(ARGV[3], 2))
end
if grouped then
  group_move(queue_keys(KEYS), member, due) -- wakes consumers itself
  return 1
end
local old_head = pending_head(KEYS[2])
pend(queue_keys(KEYS), member, due, nil) -- in its place: delayed, or its priority's set
wake_if_earlier(ARGV[1], due, old_head)
return 1
