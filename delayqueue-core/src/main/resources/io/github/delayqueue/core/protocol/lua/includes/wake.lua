-- Wake-ups: the head of a set (the next due time or lease deadline), and the message published on the queue's
-- wake channel when a write makes a message due before the head a sleeping consumer waits for.

local function head_score(key)
  local h = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if h[2] then return tonumber(h[2]) end
  return nil
end

-- The head of delayed: its earliest due time, past the priorities' markers scored -inf (includes/priorities.lua)
local function pending_head(key)
  local h = redis.call('ZRANGEBYSCORE', key, '(-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if h[2] then return tonumber(h[2]) end
  return nil
end

-- Wakes sleeping consumers when a message becomes due before the current head. pcall: a user whose ACL
-- denies the channel (Redis 7's default 'acl-pubsub-default resetchannels') gets an error from PUBLISH
-- after the script's writes; a wake-up is an optimisation, so it must never fail a write that was made.
-- Consumers of such a user fall back to their timed poll.
local function wake_if_earlier(channel, due, old_head)
  if old_head == nil or due < old_head then
    redis.pcall('PUBLISH', channel, string.format('%d', due))
  end
end
