-- Ids remembered after delivery: a message sent with a dedup window (SendOptions.withDedupWindow) has its window
-- in `windows` while it lives; when it is acknowledged or dead-lettered its id is remembered as the key
-- "<remembered:><id>" with the window as its time to live (Redis expires it: no sweep), and an if-absent send with a
-- window under that id writes nothing. `keys` is queue_keys(KEYS). Only messages sent with a window reach SET and
-- EXISTS, so sends without windows need no wider ACL.

-- The header Java writes first in a body "<length>:{"dq-dedup-window":"<ms>",...}<payload>"
local WINDOW_HEADER = '{"dq-dedup-window":"'

-- The dedup window (ms, a string) a body carries, or nil
local function window_of(body)
  if string.byte(body, 1) == 48 then return nil end -- '0:' no headers
  local colon = string.find(body, ':', 1, true)
  if not colon or string.sub(body, colon + 1, colon + #WINDOW_HEADER) ~= WINDOW_HEADER then return nil end
  local from = colon + #WINDOW_HEADER + 1
  local to = string.find(body, '"', from, true)
  if not to then return nil end
  local window = string.sub(body, from, to - 1)
  local ms = tonumber(window)
  if not ms or ms < 1 or ms ~= math.floor(ms) then return nil end
  return window
end

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
