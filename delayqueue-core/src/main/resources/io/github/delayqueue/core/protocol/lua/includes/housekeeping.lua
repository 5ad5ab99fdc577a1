-- Claim stage "housekeeping": work that need not run on every claim, run when the claim's options say so (`house`).
-- The engine's pollers ask on their first claim and then at most once per Poller.HOUSEKEEPING_NANOS of their own
-- clock per partition, so an idle or busy queue pays it about once a second per consumer, not per claim:
--   - dead letters past their retention or beyond the count are deleted, at most DEAD_TRIM per call (when none is due
--     for deletion: one ZRANGEBYSCORE and one ZCARD); a call that deleted DEAD_TRIM says so in its reply, and the
--     engine runs the stage again on its next claim, so a flood of dead letters is trimmed as fast as it comes;
--   - history records (includes/history.lua) older than the queue keeps them, at most HISTORY_TRIM per call (one
--     ZRANGEBYSCORE when none is), counted with the dead letters deleted for running the stage again at once, and on
--     their own in the reply (for the engine's listener);
--   - members scored beyond what a Lua number holds exactly (+inf and the like: never due, so the admit stage never
--     meets them; written by something other than delayqueue) go to the dead letters, a few per call.
--- @include "dead_letters"
--- @include "history"

local DEAD_TRIM = 100
local MAX_SCORE = 9007199254740991

-- Whether a score is one no script writes: not a whole number of milliseconds, infinite, or beyond MAX_SCORE
local function bad_score(score)
  local n = tonumber(score)
  return n == nil or n ~= math.floor(n) or n > MAX_SCORE or n < -MAX_SCORE
end

-- Dead-letters a member with a bad score with its reason, rather than stalling the batch it was claimed in
local function bury_bad_score(c, member, score)
  c.bad_dead = c.bad_dead + 1
  local id = id_of(member)
  local attempts = tonumber(redis.call('HGET', c.keys.attempts, id) or '0')
  bury(c.keys, id, member, c.now, attempts, 'due time ' .. score .. ' in the delayed set is not a whole number of '
    .. 'milliseconds (written by something other than delayqueue)')
end

local function housekeeping(c)
  if not c.house then return end
  local keys = c.keys
  local expired = redis.call('ZRANGEBYSCORE', keys.dead, '-inf', c.now - c.dead_ms, 'LIMIT', 0, DEAD_TRIM)
  delete_dead(keys, expired)
  local trim = math.min(redis.call('ZCARD', keys.dead) - c.dead_max, DEAD_TRIM - #expired)
  if trim > 0 then delete_dead(keys, redis.call('ZRANGE', keys.dead, 0, trim - 1)) end
  c.dead_trimmed = #expired + math.max(trim, 0) -- DEAD_TRIM: there may be more, and the engine asks again at once
  if c.hist_ms > 0 then
    c.hist_trimmed = history_trim_age(keys, c.now - c.hist_ms) -- in the reply (claim_state.lua's claim_reply)
    c.dead_trimmed = math.max(c.dead_trimmed, c.hist_trimmed) -- HISTORY_TRIM = DEAD_TRIM
  end
  local too_late = redis.call('ZRANGEBYSCORE', keys.delayed, '(' .. MAX_SCORE, '+inf', 'WITHSCORES', 'LIMIT', 0, 10)
  for k = 1, #too_late, 2 do bury_bad_score(c, too_late[k], too_late[k + 1]) end
end
