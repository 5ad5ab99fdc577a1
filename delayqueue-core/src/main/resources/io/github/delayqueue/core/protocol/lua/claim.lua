-- Claims due messages under a lease, within the flow limits.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 the claim's options, one JSON object (includes/claim_state.lua)
-- Returns: now in microseconds (the consumer sleeps until the next event to the microsecond, not to the
--          millisecond below it), next event time in ms ('' when none: the earliest due time or lease deadline, or
--          when a limit lets due messages go), what this call did besides claiming ('' when nothing, else
--          "<expired leases put back>:<expired leases dead-lettered>:<bad due times dead-lettered>:<expired
--          dead-lettered>:<expired dropped>:<dead letters deleted>:<history records deleted by age>", for the engine's
--          listener and housekeeping; a reply of six fields, without the last, is read as 0 history records), the flow limit that held due messages back
--          ('' when none, else R rate limit, F cap in flight, H hold: the next event is then when the limit lets them
--          go, or none for F, which a settle wakes; P when the queue is paused, with no next event), then pairs:
--          "<attempt>:<due time>:<member>" (the member last: an id may hold ':'), envelope. Two reply items per message rather than four: the client decodes every item
--          into a string of its own. QueueOps.claim reads it.
-- Stages, each an include with its own header:
--   housekeeping           dead letters past retention or count, members scored past any due time (on a cadence)
--   return_expired_leases  expired leases back to delayed or their group, or to the dead letters
--   (paused)               a paused queue hands nothing out
--   flow_allow             the room the queue-wide limits leave (rate limit, cap in flight, slow-down hold)
--   read_candidates        due members of delayed and of the groups whose turn has come, in due order
--   admit                  one verdict per candidate: deliver, corrupt, regroup, orphan, stray or expired
--   fit_budget             the byte budget of one reply
--   grant_leases           attempts, leases, the reply's messages; group permits and the flow limits spent
--   claim_reply            the next event and what the call did
--- @include "claim_state"
--- @include "housekeeping"
--- @include "leases"
--- @include "admit"
local c = claim_open(KEYS, ARGV[1])
housekeeping(c)
return_expired_leases(c)
if claim_paused(c) then return claim_reply(c, true) end
local batch = read_candidates(c, c.limit > 0 and flow_allow(c.flow, c.limit) or 0)
admit(c, batch)
fit_budget(c, batch)
grant_leases(c, batch)
return claim_reply(c, false)
