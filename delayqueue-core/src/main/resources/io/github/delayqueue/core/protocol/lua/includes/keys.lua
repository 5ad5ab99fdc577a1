-- The standard key layout: the ten keys every script but partitions.lua is given, in this order (import.lua and
-- versioned.lua add keys of their own after them, their headers say which). All share the queue's hash tag.
--   1 messages  HASH  id -> envelope "2<seq8><enqueued8><body>" (format 1, "1:<seq12>:<enqueuedMs>:<body>", is still read)
--   2 delayed   ZSET  member -> due time (ms, Redis clock)
--   3 inflight  ZSET  member -> lease deadline (ms, Redis clock)
--   4 attempts  HASH  id -> deliveries so far (absent until first claim); also the fencing token
--   5 errors    HASH  id -> last handler error (absent until a failure)
--   6 dead      ZSET  dead key -> time it was dead-lettered
--   7 deadmsg   HASH  dead key -> envelope of a dead letter
--   8 deaderr   HASH  dead key -> "<attempts>:<reason>"
--   9 sequence  STRING counter giving every send a sequence number
--  10 paused    HASH  'since' -> when the queue was paused (ms, Redis clock); absent while it is not. A hash
--                     rather than a string so that the ACL rule set of earlier releases (HSET, HDEL, HEXISTS,
--                     no SET/GET/DEL) still covers it
-- A script's own body reads them as KEYS[n] by these numbers; helpers take them by name, from queue_keys(KEYS).
-- Two more are named after the messages key (same hash tag, so the same slot), for dedup windows only
-- (includes/remember.lua); they are not passed as KEYS because a script touches them only for messages sent with
-- a window, and the key of a remembered id is not known before the script reads the message:
--   windows     HASH   id -> dedup window (ms) of a live message sent with one
--   remembered: STRING prefix of "<remembered:><id>" -> "1", with the window as its time to live

-- `base` is the prefix every other key of the queue (partition) is named with: base .. 'flow', base .. 'groups'.
local function queue_keys(keys)
  local base = string.sub(keys[1], 1, -9) -- the messages key without 'messages'
  return { messages = keys[1], delayed = keys[2], inflight = keys[3], attempts = keys[4], errors = keys[5],
    dead = keys[6], deadmsg = keys[7], deaderr = keys[8], sequence = keys[9], paused = keys[10],
    windows = base .. 'windows', remembered = base .. 'remembered:', base = base }
end
