-- Reads a page of a queue's (partition's) history, the latest settled record first (includes/history.lua).
-- KEYS: the standard layout (includes/keys.lua); only the history's keys, named after it, are read
-- ARGV: 1 wake channel (unused), 2 offset (rank from the latest, 0 or more), 3 limit (1 or more; the caller bounds it
--       to 1,000)
-- Returns: the Redis time (ms), how many records the history holds, then three fields per record, newest first: id,
--          when it was settled (ms, Redis clock), the record (JSON, read by protocol.HistoryRecord).
-- Read-only; touches at most 'limit' records, O(log N + limit).
--- @include "clock"
--- @include "keys"
--- @include "history"
local out = { string.format('%d', now_ms()) }
local page = history_page(queue_keys(KEYS), tonumber(ARGV[2]), tonumber(ARGV[3]))
for i = 1, #page do out[#out + 1] = page[i] end
return out
