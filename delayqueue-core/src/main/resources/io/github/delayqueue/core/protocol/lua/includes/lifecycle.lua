-- A message's life cycle: a live message is its envelope in messages and its member in delayed (pending) or
-- inflight (claimed, under a lease), with its attempts and last error beside it (a grouped message is pending in its
-- group's set instead of delayed: includes/groups.lua; a prioritized one in its priority's set: includes/priorities.lua).
-- `keys` is queue_keys(KEYS).
--- @include "groups"
--- @include "priorities"

-- Puts a member pending at `due`, where its shape pends: its group's set (group_pend, which wakes consumers itself;
-- `was` is the member it replaces in the group's in-flight set), its priority's set, or delayed
local function pend(keys, member, due, now, was)
  if is_grouped(member) then
    group_pend(keys, member, due, now, was)
  elseif is_prioritized(member) then
    priority_pend(keys, member, due)
  else
    redis.call('ZADD', keys.delayed, due, member)
  end
end

-- Takes an ungrouped member out of delayed or its priority's set; returns 1 if it was there
local function unpend(keys, member)
  if is_prioritized(member) then return redis.call('ZREM', band_of(keys, member), member) end
  return redis.call('ZREM', keys.delayed, member)
end

-- The due time of an ungrouped pending member (in delayed or its priority's set), or false
local function pending_score(keys, member)
  if is_prioritized(member) then return redis.call('ZSCORE', band_of(keys, member), member) end
  return redis.call('ZSCORE', keys.delayed, member)
end

-- Deletes every trace of a live message.
local function forget(keys, id, member)
  unpend(keys, member)
  redis.call('ZREM', keys.inflight, member)
  redis.call('HDEL', keys.messages, id)
  redis.call('HDEL', keys.attempts, id)
  redis.call('HDEL', keys.errors, id)
  redis.call('HDEL', keys.windows, id)
  if is_grouped(member) then group_forget(keys, member, nil) end
end

-- A delivery is current only while its member is in flight and its attempt number is the latest.
local function is_current(keys, id, member, attempt)
  return redis.call('ZSCORE', keys.inflight, member) and redis.call('HGET', keys.attempts, id) == attempt
end

-- For a member stray() judged a stray (includes/format.lua): whether the message its id's `envelope` names is live
-- under its own member (pending in delayed or its group's set, or in flight), so that the member is indeed a
-- leftover beside it. A value that only looks like an envelope (written by hand, starting with '2'; or an envelope
-- whose sequence digits were edited) names a member no set holds: then `member` is the message's only one, and is
-- handled as any message (a claim hands it out, the consumer dead-letters what it cannot read), not dropped. Runs on
-- stray()'s mismatch path only: up to two ZSCOREs.
local function named_live(keys, id, envelope)
  local real = member_of(id, envelope)
  if redis.call('ZSCORE', keys.inflight, real) then return true end
  if is_grouped(real) then
    return group_pending_due(keys, real) ~= nil
  end
  return pending_score(keys, real) ~= false
end
