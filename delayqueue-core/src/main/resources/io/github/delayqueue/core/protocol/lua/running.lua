-- Writes the running records of deliveries under way, for a consumer that keeps the history.
-- KEYS: the standard layout (includes/keys.lua)
-- ARGV: 1 wake channel (unused), then per delivery five: id, member, attempt, its running record (JSON, as
--       protocol.HistoryRecord writes it), its progress (JSON) or ''
-- Returns: one string with a flag character per delivery: 1 written, 0 the delivery is no longer the message's
--          current one (settled, cancelled, its lease lost)
-- The engine writes a delivery's record at its first lease extension or its first progress report, and again with
-- each progress report (at most every 250 ms); includes/history.lua's history_running says what is kept.
--- @include "keys"
--- @include "history"
local queue = queue_keys(KEYS)
local result = {}
for j = 2, #ARGV, 5 do
  result[#result + 1] = tostring(history_running(queue, ARGV[j], ARGV[j + 1], ARGV[j + 2], ARGV[j + 3], ARGV[j + 4]))
end
return table.concat(result)
