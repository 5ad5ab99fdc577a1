-- Ids remembered after delivery: a message sent with a dedup window (SendOptions.withDedupWindow) has its window
-- in `windows` while it lives; when it is acknowledged or dead-lettered its id is remembered as the key
-- "<remembered:><id>" with the window as its time to live (Redis expires it: no sweep), and an if-absent send with a
-- window under that id writes nothing. `keys` is queue_keys(KEYS). Only messages sent with a window reach SET and
-- EXISTS, so sends without windows need no wider ACL. The window is read from the body by format.lua's window_of.
--- @include "format"

-- Whether an if-absent send with a window finds the id remembered
local function is_remembered(keys, id)
  return redis.call('EXISTS', keys.remembered .. id) == 1
end

-- Records the window of a message just written (call after forget() of the message it replaced)
local function note_window(keys, id, window)
  if window then redis.call('HSET', keys.windows, id, window) end
end

-- Remembers those of `ids` (messages leaving for good: acknowledged or dead-lettered) that were sent with a window.
-- One HMGET whatever the count; nothing else unless some were.
local function remember(keys, ids)
  if #ids == 0 then return end
  local windows = redis.call('HMGET', keys.windows, unpack(ids))
  local found = {}
  for i = 1, #ids do
    if windows[i] then
      -- pcall: an ACL without SET must not fail the acks of the whole batch (the if-absent send's EXISTS fails
      -- loudly instead, at the send)
      redis.pcall('SET', keys.remembered .. ids[i], '1', 'PX', windows[i])
      found[#found + 1] = ids[i]
    end
  end
  if #found > 0 then redis.call('HDEL', keys.windows, unpack(found)) end
end
