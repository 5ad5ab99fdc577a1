-- Counts a queue's messages (QueueStats) and reads its flow state (QueueFlow).
-- KEYS: the standard layout (includes/keys.lua), then 11 the flow hash (includes/flow.lua)
-- ARGV: 1 wake channel (unused)
-- Returns: now, pending, due now, in flight, dead, next due ('' if none), then the flow state (flow.lua's flow_view):
--          the limits the claims apply ('' none), the claim rate per second ('' when not counted), the due messages
--          the limits or a hold hold back now (0 while paused), the end of an active hold ('' none), and the part of
--          those a group's limits or hold hold back (0 while paused); last, the records the queue's history keeps
--          (includes/history.lua: one ZCARD of history-at, 0 for a queue that keeps none); then the due messages of
--          each priority other than the default that has pending messages, "<level>:<due now>" joined by ',' ('' for
--          a queue without priorities: its due messages are all of the default priority).
-- Prioritized messages (includes/priorities.lua) count as pending and due from their priorities' sets, which
-- delayed's markers (scored -inf, not counted) name; the next due time is the earliest of delayed's and theirs.
-- Grouped messages (includes/groups.lua) count as pending from the group-flow hash's counter; as due now, those of
-- the first 100 groups by rank (a read bounded like a claim), whether or not a group limit or hold lets them be
-- claimed yet; the next due time is the earliest of the ungrouped messages (delayed without the groups' marker,
-- which may stand at a sweep time) and the groups' next claim times (the index's first score below CAPPED).
-- Throttled: the due grouped messages, among those counted as due, of the groups whose index score is past now (a
-- next permit or a hold in the future, or CAPPED at the in-flight cap: a claim does not read them), then of the rest
-- of the due messages those beyond the queue-wide limits' room. A group whose turn has come counts as claimable whole
-- (the index does not say how many permits it has; the claim that takes some re-scores it), and so does one whose
-- in-flight cap is full but not yet CAPPED (consumers with different group limits: one without a cap claimed, or the
-- cap was lowered on a restart) until a claim with the cap marks it. No command beyond the
-- count of `ready`: the scores come with the index read, and an ungrouped queue runs what it ran before.
--- @include "clock"
--- @include "wake"
--- @include "flow"
--- @include "keys"
--- @include "groups"
--- @include "priorities"
local now, now_us = clock()
local next_due = nil
local head = redis.call('ZRANGE', KEYS[2], 0, 1, 'WITHSCORES')
if head[1] == GROUPS_MARK then head = {head[3], head[4]} end
if head[2] then next_due = tonumber(head[2]) end
local by_groups = 0 -- due grouped messages of the groups a claim would not read now (their limits or hold)
local pending, ready = redis.call('ZCARD', KEYS[2]), redis.call('ZCOUNT', KEYS[2], '-inf', now)
local by_level = {}
if head[2] == '-inf' then -- the priorities' markers come first: next due, pending and due read past them
  local past = redis.call('ZRANGEBYSCORE', KEYS[2], '(-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 2)
  if past[1] == GROUPS_MARK then past = { past[3], past[4] } end
  next_due = past[2] and tonumber(past[2]) or nil
  for _, mark in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '-inf')) do
    pending, ready = pending - 1, ready - 1
    if is_priority_mark(mark) then
      local key = queue_keys(KEYS).base .. 'priority:' .. string.sub(mark, 2, 2)
      local due = redis.call('ZCOUNT', key, '-inf', now)
      pending, ready = pending + redis.call('ZCARD', key), ready + due
      if due > 0 then by_level[#by_level + 1] = string.sub(mark, 2, 2) .. ':' .. due end
      local h = head_score(key)
      if h ~= nil and (next_due == nil or h < next_due) then next_due = h end
    end
  end
end
local grouped = tonumber(redis.call('HGET', group_base(queue_keys(KEYS)) .. 'group-flow', 'pending') or '0')
local mark = redis.call('ZSCORE', KEYS[2], GROUPS_MARK)
if grouped > 0 or mark then
  local base = group_base(queue_keys(KEYS))
  if mark then
    pending = pending - 1
    if tonumber(mark) <= now then ready = ready - 1 end
  end
  pending = pending + grouped
  local groups = redis.call('ZRANGE', base .. 'groups', 0, 99, 'WITHSCORES')
  for i = 1, #groups, 2 do
    local due = redis.call('ZCOUNT', base .. 'g:' .. groups[i] .. ':p', '-inf', now)
    ready = ready + due
    if tonumber(groups[i + 1]) > now then by_groups = by_groups + due end
  end
  if groups[2] and tonumber(groups[2]) < CAPPED and (next_due == nil or tonumber(groups[2]) < next_due) then
    next_due = tonumber(groups[2])
  end
end
local limits, rate, room, hold = flow_view(KEYS[11], KEYS[3], now, now_us)
-- a paused queue hands nothing out whatever the limits: the pause holds its due messages, not a limit
local throttled = 0
if (by_groups > 0 or (room >= 0 and ready > room)) and redis.call('HEXISTS', KEYS[10], 'since') == 0 then
  throttled = by_groups
  if room >= 0 and ready - by_groups > room then throttled = ready - room end
else
  by_groups = 0
end
return {
  string.format('%d', now),
  pending,
  ready,
  redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[6]),
  next_due and string.format('%d', next_due) or '',
  limits,
  rate,
  throttled,
  hold and string.format('%d', hold) or '',
  by_groups,
  redis.call('ZCARD', queue_keys(KEYS).base .. 'history-at'),
  table.concat(by_level, ',')
}
