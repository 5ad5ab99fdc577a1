-- Messages that expire (SendOptions.expiresAt / expiresAfter): the expiry travels in the envelope as the header
-- "dq-expires", written by Java right after the dedup window (or first without one), so it is read at a fixed place
-- of the envelope the claim already fetched: no key of its own. Its value is epoch ms, or "+<ms>" after the
-- envelope's enqueue time (a duration after a relative due time, on the Redis clock).
--- @include "members"

local EXPIRY_AT_START = '{"dq-expires":"'
local EXPIRY_AFTER_WINDOW = ',"dq-expires":"'
local WINDOW_AT_START = '{"dq-dedup-window":"'

-- The expiry (epoch ms, a number) of a stored envelope "2<seq8><enqueued8><length>:{...}<payload>", or nil. A
-- message without headers costs one byte compare; with headers but no expiry, a few substring compares.
local function expiry_of(envelope)
  if not envelope or string.byte(envelope, 1) ~= 50 or string.byte(envelope, 18) == 48 then return nil end
  local colon = string.find(envelope, ':', 18, true)
  if not colon then return nil end
  local at = colon + 1
  local key = EXPIRY_AT_START
  if string.sub(envelope, at, at + #WINDOW_AT_START - 1) == WINDOW_AT_START then
    local close = string.find(envelope, '"', at + #WINDOW_AT_START, true)
    if not close then return nil end
    at = close + 1
    key = EXPIRY_AFTER_WINDOW
  end
  if string.sub(envelope, at, at + #key - 1) ~= key then return nil end
  local from = at + #key
  local to = string.find(envelope, '"', from, true)
  if not to then return nil end
  if string.byte(envelope, from) == 43 then -- '+': ms after the enqueue time (<enqueued8>, characters 10-17)
    local after = tonumber(string.sub(envelope, from + 1, to - 1))
    if not after then return nil end
    local enqueued = 0
    for k = 10, 17 do
      -- a byte of no digit (a corrupt envelope): no expiry here; the consumer dead-letters the envelope as corrupt
      local digit = string.find(DIGITS64, string.sub(envelope, k, k), 1, true)
      if not digit then return nil end
      enqueued = enqueued * 64 + digit - 1
    end
    return enqueued + after
  end
  return tonumber(string.sub(envelope, from, to - 1))
end
