-- Dead letters: a message that failed for good leaves the live sets for dead, deadmsg and deaderr. A dead key is
-- "\31<seq8><id>", <seq8> a number of the send counter taken when it died, so an id that dies twice leaves two
-- dead letters (releases before 2026-11-24 keyed a dead letter by its bare id; an id never holds a control
-- character, so such keys are told apart by their first byte and still read). `keys` is queue_keys(KEYS).
--- @include "format"
--- @include "lifecycle"
--- @include "remember"
--- @include "sets"

-- Moves a live message to the dead letters with its reason, under a dead key of its own; remembers its id if it
-- was sent with a dedup window; a member of a job set leaves its mark (includes/sets.lua). A stray member (includes/format.lua: its envelope is a later message's, live under
-- its own member: lifecycle.lua's named_live; as when an older release's claim put one in flight and its lease
-- expired on the last attempt) only leaves: the message it names is not buried with it.
local function bury(keys, id, member, now, attempts, reason)
  local envelope = redis.call('HGET', keys.messages, id)
  if envelope and stray(member, envelope) and named_live(keys, id, envelope) then
    unpend(keys, member)
    redis.call('ZREM', keys.inflight, member)
    if is_grouped(member) then group_forget(keys, member, now) end
    return
  end
  if envelope then remember(keys, { id }) end
  forget(keys, id, member)
  if envelope then
    set_mark(keys, now, 'D', id, envelope)
    local key = '\31' .. encode8(reserve_sequence(keys.sequence, 1)) .. id
    redis.call('HSET', keys.deadmsg, key, envelope)
    redis.call('HSET', keys.deaderr, key, attempts .. ':' .. reason)
    redis.call('ZADD', keys.dead, now, key)
  end
end

-- The message id of a dead key (a bare id in releases before 2026-11-24)
local function dead_id(key)
  if string.byte(key, 1) == 31 then return string.sub(key, 10) end
  return key
end

-- Deletes dead letters by dead key (variadic: one command per key set, whatever the count)
local function delete_dead(keys, dead_keys)
  if #dead_keys == 0 then return end
  redis.call('ZREM', keys.dead, unpack(dead_keys))
  redis.call('HDEL', keys.deadmsg, unpack(dead_keys))
  redis.call('HDEL', keys.deaderr, unpack(dead_keys))
end
