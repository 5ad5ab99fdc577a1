-- Settles finished deliveries in one round trip.
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua): a claim waiting for
--       the cap on messages in flight is woken
-- ARGV: 1 wake channel, then one entry per op (member last: it is the only part that may hold ':'):
--   "A<attempt>:<member>"                  ack: the message is done and deleted
--   "a<attempt>:<member>"                  ack of a delivery whose envelope carries no dedup window (the engine
--                                           read it from the envelope it claimed): its id is not looked up in windows
--   "R<attempt>:<delay ms>:<member>", text  retry: back to the delayed set in <delay ms>, text its last error
--   "D<attempt>:<member>", text             dead: to the dead letters with text as the reason
--   "H<attempt>:<due ms>:<member>"           hand back: never run (the handler executor rejected it), so back
--                                           to the delayed set at its due time and the attempt not counted
--   "L<attempt>:<delay ms>:<member>"         later: the handler asked for it again in <delay ms>; not a failure,
--                                           so the attempt is not counted and no error is recorded
--   "K<attempt>:<keep>:<member>", record    ack, and the record kept in the queue's history (includes/history.lua),
--                                           which keeps the latest <keep> records (0: no count bound)
--   "E<attempt>:<keep>:<member>", text, record  dead, with text as the reason, and the record kept likewise
--   "S<set id>" between ops                  the messages of the ops after it are members of that job set ("S"
--                                           alone: of none): the acks that apply leave one mark per set
--                                           (includes/sets.lua; a dead letter's bury reads the set from the envelope
--                                           and leaves its own)
--   H and L give the attempt back, so the next claim is attempt <attempt> again: they put the message back under a
--   new sequence number (its envelope rewritten, includes/format.lua's renumbered), so that the next delivery's
--   member is not this one, and this op sent again (its reply lost: the Settler resends a failed batch, Redisson a
--   command whose reply did not come) is stale rather than taking that delivery's lease. The price: one HMGET of
--   their envelopes, one INCRBY and one HSET per call (no more command per op: an L read its envelope before, one
--   HGET per op), the envelopes copied in Lua, and the message's place among messages due at the same millisecond is
--   that of a send at the hand-back (format 2; one left in format 1 keeps its format and its place before them).
--   The same H or L twice in one call applies once. A member out of step with its envelope (includes/format.lua's
--   stray: a hand edit or an older release's leftover) is renumbered too when the claim handed it out as the message's
--   only member (lifecycle.lua's named_live false: up to two ZSCOREs, on that mismatch path only), its shape (grouped
--   or not) kept; it goes back as it was when the envelope names a live member (the next claim drops it), or when its
--   shape cannot be kept (a grouped member beside a format-1 envelope, an ungrouped format-1 member beside a format-2
--   envelope naming a group: there a resent H or L may still take the next delivery's lease).
-- Returns: one string with a flag character per op: 1 applied, 0 stale (lease lost to a newer delivery, or
--          message gone), then ":<count>" when the history's count bound deleted records (finish_history; nothing
--          when it deleted none, so a reply of flags alone reads as none). One reply of N bytes rather than N integer
--          replies, each decoded and boxed by the client.
-- An ack is one argument rather than five: most of a burst's settle cost was per-argument work
-- (client encoding, protocol parsing, Lua strings), not the Redis commands.
-- Every op is fenced: it applies only if the delivery is still the current one.
-- An ack or dead letter of a message sent with a dedup window remembers its id for the window (includes/remember.lua).
-- A retry or later (R, L) due after the message's expiry (includes/format.lua) is not run: the message goes back to
-- the delayed set just after its expiry, where the next claim expires it by the queue's policy (a retry reads its
-- envelope with one HGET per op; a later reads it from the call's HMGET of the H and L envelopes, above; acks and
-- dead letters read nothing more). A grouped message (includes/groups.lua) goes back
-- to its group's set, and any settle of one frees its place against its group's in-flight cap.
-- Stages, each an include with its own header:
--   settle_open / read_fences   the ops, and the fences of the whole batch (includes/settle_ops.lua)
--   prepare_backs               the hand-backs' envelopes and new sequence numbers (includes/settle_outcomes.lua)
--   apply_ops                   each op that holds its fence: ack, retry, hand back or dead letter
--   finish_backs / finish_acks  the renumbered envelopes, the acks' deletes, for the whole batch at once
--   finish_history              the records the call kept, written at once, and the history's count bound
--   wake                        a wake-up when a message came back due before the head; a claim waiting for the
--                               cap on messages in flight is woken (includes/flow.lua)
--- @include "settle_outcomes"
--- @include "flow"
local s = settle_open(KEYS, ARGV)
if #s.members == 0 then return '' end
read_fences(s)
prepare_backs(s)
apply_ops(s)
finish_backs(s)
finish_acks(s)
finish_history(s)
if s.earliest ~= nil then wake_if_earlier(s.channel, s.earliest, s.old_head) end
if KEYS[11] then flow_freed(KEYS[11], s.channel, s.now) end
return table.concat(s.result)
