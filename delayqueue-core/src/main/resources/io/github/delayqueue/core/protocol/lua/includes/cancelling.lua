-- Cancelling a live message, for cancel.lua and the outbox's cancel intents (versioned.lua's C): every trace of it is
-- deleted (lifecycle.lua's forget), its running record, if a consumer that keeps the history claimed it, becomes a
-- cancelled one (history.lua's history_cancelled), and one in flight is gone for its delivery too: every settle of that delivery is stale from
-- here on, and the wake channel says "cancel:<member>" (the member names this send of the id, not a later one), so the
-- consumer running it interrupts its handler at once (a consumer of an older release reads it as a wake-up naming no
-- due time, and claims). Like every wake-up it runs under pcall: an ACL without the channel never fails the cancel,
-- and the consumer then learns of it when it next extends the lease. Its place under the cap on messages in flight is
-- freed as a settle frees it: a claim waiting for the cap is woken (flow.lua's flow_freed on `flow_key`).
--- @include "clock"
--- @include "format"
--- @include "lifecycle"
--- @include "flow"
--- @include "history"
--- @include "sets"

-- Cancels the live message `id` stored as `envelope`; returns 1 if it was pending, 2 if it was in flight
local function cancel_live(keys, channel, flow_key, id, envelope)
  local member = member_of(id, envelope)
  local running = redis.call('ZSCORE', keys.inflight, member)
  history_cancelled(keys, id, redis.call('HGET', keys.attempts, id), now_ms())
  set_mark(keys, now_ms(), 'C', id, envelope)
  forget(keys, id, member)
  if not running then return 1 end
  redis.pcall('PUBLISH', channel, 'cancel:' .. member)
  flow_freed(flow_key, channel, now_ms())
  return 2
end
