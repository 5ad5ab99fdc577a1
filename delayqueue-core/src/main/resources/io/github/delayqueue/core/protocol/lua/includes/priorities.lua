-- Priorities: a message sent with a priority other than the default (SendOptions.priority; never with a group) pends
-- in its priority's set rather than in delayed:
--   <base>priority:<level>  ZSET  member "^<level><seq8><id>" (includes/format.lua) -> due time (ms), as in delayed
-- and while that set may hold members, delayed holds its marker "^<level>" (two bytes: no id, never a message) scored
-- -inf. A claim's read of delayed's due members meets the markers first, so a queue without priorities runs the claim
-- it ran before, command for command, and one with them learns from that same read which sets to read
-- (includes/admit.lua). Among every due candidate the claim takes the lowest `due - level * aging` first, a member of
-- delayed or of a group's set counting at DEFAULT_LEVEL: higher priorities first among messages due together, due
-- order within one priority, and a message waits behind a higher priority's only for those that became due less than
-- (their level - its level) * aging after it. Never early: only due members are read. A marker whose set a claim
-- finds empty goes with that claim; readers of delayed's head skip the markers (wake.lua's pending_head).
--- @include "format"
--- @include "wake"

local DEFAULT_LEVEL = 4

-- The set a prioritized member pends in
local function band_of(keys, member)
  return keys.base .. 'priority:' .. string.sub(member, 2, 2)
end

-- Whether a member of delayed is a priority's marker
local function is_priority_mark(member)
  return #member == 2 and string.byte(member, 1) == PRIORITIZED
end

-- Puts a prioritized member in its priority's set at `due`, and marks the set in delayed (the caller wakes consumers
-- when it compares `due` with delayed's head: a consumer sleeps until the earliest of delayed's head and the sets'
-- heads, so a due before delayed's head wakes it, and one after it is met when that head wakes it)
local function priority_pend(keys, member, due)
  redis.call('ZADD', band_of(keys, member), due, member)
  redis.call('ZADD', keys.delayed, '-inf', string.sub(member, 1, 2))
end

-- priority_pend for several members of one priority, `run` their ZADD arguments (due time, member, ...): one ZADD
local function priority_pend_all(keys, level, run)
  redis.call('ZADD', keys.base .. 'priority:' .. level, unpack(run))
  redis.call('ZADD', keys.delayed, '-inf', '^' .. level)
end

-- The levels (digits) delayed's markers name: one ZRANGEBYSCORE of its -inf members
local function marked_levels(keys)
  local levels = {}
  for _, mark in ipairs(redis.call('ZRANGEBYSCORE', keys.delayed, '-inf', '-inf')) do
    if is_priority_mark(mark) then levels[#levels + 1] = string.sub(mark, 2, 2) end
  end
  return levels
end

-- The earliest due time of the ungrouped pending messages: delayed's head, or, when delayed starts with the markers,
-- the earliest of its head past them and the marked sets' heads. One ZRANGE for a queue without priorities, as
-- reading delayed's head costs. `levels`: the marked levels when the caller read them already (the claim), else nil;
-- `due_left`: the due time of a due message the claim left out, if any (then no command).
local function earliest_pending(keys, levels, due_left)
  if due_left then return due_left end -- a due message the claim left: due now, whatever the heads
  if not levels then
    local first = redis.call('ZRANGE', keys.delayed, 0, 0, 'WITHSCORES')
    if first[2] ~= '-inf' then return first[2] and tonumber(first[2]) or nil end
    levels = marked_levels(keys)
  end
  local head = pending_head(keys.delayed)
  for _, level in ipairs(levels) do
    local h = head_score(keys.base .. 'priority:' .. level)
    -- a head past any due time (+inf, written by hand) is none: it never comes due
    if h ~= nil and h < math.huge and (head == nil or h < head) then head = h end
  end
  return head
end
