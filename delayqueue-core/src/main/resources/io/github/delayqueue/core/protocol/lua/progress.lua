-- Keeps the progress a running delivery reported in its running record.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel (unused), 2 id, 3 member, 4 attempt, 5 the progress (JSON, sized by the engine)
-- Returns: a list of one number: 1 if it was kept, 0 if the delivery is no longer the message's running one (settled, cancelled, lease
--          lost, or its record trimmed)
-- Only consumers that keep the history write running records (includes/history.lua's history_progress), and only
-- the delivery whose record it is may write its progress.
--- @include "keys"
--- @include "history"
return { history_progress(queue_keys(KEYS), ARGV[2], ARGV[3], ARGV[4], ARGV[5]) }
