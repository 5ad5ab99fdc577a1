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

local function queue_keys(keys)
  return { messages = keys[1], delayed = keys[2], inflight = keys[3], attempts = keys[4], errors = keys[5],
    dead = keys[6], deadmsg = keys[7], deaderr = keys[8], sequence = keys[9], paused = keys[10] }
end
