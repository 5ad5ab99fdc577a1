-- A message's life cycle: a live message is its envelope in messages and its member in delayed (pending) or
-- inflight (claimed, under a lease), with its attempts and last error beside it (a grouped message is pending in its
-- group's set instead of delayed: includes/groups.lua). `keys` is queue_keys(KEYS).
--- @include "groups"

-- Deletes every trace of a live message.
local function forget(keys, id, member)
  redis.call('ZREM', keys.delayed, member)
  redis.call('ZREM', keys.inflight, member)
  redis.call('HDEL', keys.messages, id)
  redis.call('HDEL', keys.attempts, id)
  redis.call('HDEL', keys.errors, id)
  redis.call('HDEL', keys.windows, id)
  if string.byte(member, 1) == 124 then group_forget(keys, member, nil) end
end

-- A delivery is current only while its member is in flight and its attempt number is the latest.
local function is_current(keys, id, member, attempt)
  return redis.call('ZSCORE', keys.inflight, member) and redis.call('HGET', keys.attempts, id) == attempt
end
