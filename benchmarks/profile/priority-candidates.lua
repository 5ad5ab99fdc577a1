-- The candidate stage of a claim (admit.lua's read_candidates, read_marks, read_priorities, by_priority), alone and
-- without writes, on the backlog of priority-setup.lua (docs/internals/benchmarks.md, "priorities"). ARGV[1] the
-- variant, ARGV[2] the room (256), ARGV[3] the aging (ms), ARGV[4] if given: return the members taken, to check that
-- the variants take the same ones.
--   plain     delayed's due members past the markers, as a queue without priorities reads them (256 candidates)
--   readonly  what the claim reads with priorities: delayed's due read (meets the markers), the markers, delayed past
--             them, each marked level's due members, room of each (2,560 candidates), no ordering
--   sort      the same and the claim's ordering: one table.sort of every candidate, lowest due - level * aging first
--   merge     the same reads, then a merge of the levels' runs (each already in that order) taking the room's first
--   bounded   the levels read from the highest down, each only below the rank the room's last candidate so far has
--             (due < that rank + level * aging), then the merge: the same members as sort
-- Loop it with script-loop.sh: benchmarks/profile/script-loop.sh <port> priority-candidates.lua 300 0 <variant> 256 60000
local variant, room, aging = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000
local function id_of(member)
  local first = string.byte(member, 1)
  if first == 126 then return string.sub(member, 10) end
  return string.sub(member, 11)
end
local function send_rank(member)
  local first = string.byte(member, 1)
  if first == 126 then return '~' .. string.sub(member, 2, 9) end
  return '~' .. string.sub(member, 3, 10)
end
local members, ids, scores = {}, {}, {}
local function add(due, level, ranks)
  for k = 1, #due, 2 do
    members[#members + 1] = due[k]
    ids[#ids + 1] = id_of(due[k])
    scores[#scores + 1] = string.format('%d', tonumber(due[k + 1]))
    if ranks then ranks[#ranks + 1] = level end
  end
end
if variant == 'plain' then
  local due = redis.call('ZRANGEBYSCORE', 'delayed', '(-inf', now, 'WITHSCORES', 'LIMIT', 0, room)
  add(due)
  if ARGV[4] then return members end
  return #members
end
-- the current claim: delayed's due read meets the markers, then the marks, delayed past them, each level's set
local first = redis.call('ZRANGEBYSCORE', 'delayed', '-inf', now, 'WITHSCORES', 'LIMIT', 0, room)
local levels = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', 'delayed', '-inf', '-inf')) do levels[#levels + 1] = string.sub(m, 2, 2) end
local ranks = {}
if variant == 'bounded' then
  -- highest level first; a level reads only members that could rank within the room so far: due < cutoff + level * aging
  table.sort(levels, function(a, b) return a > b end)
  local lists = {}
  local best = {} -- the room lowest ranks so far, kept sorted ascending (few: at most room)
  local function cutoff() if #best < room then return nil end return best[room] end
  local order = {}
  for _, l in ipairs(levels) do order[#order + 1] = tonumber(l) end
  -- delayed counts at level 4: insert it in level order
  local all = {}
  for _, l in ipairs(order) do if l > 4 then all[#all + 1] = l end end
  all[#all + 1] = 4
  for _, l in ipairs(order) do if l < 4 then all[#all + 1] = l end end
  for _, l in ipairs(all) do
    local c = cutoff()
    local hi = now
    if c then hi = math.min(now, c + l * aging) end
    local due
    if l == 4 then
      due = redis.call('ZRANGEBYSCORE', 'delayed', '(-inf', '(' .. string.format('%d', hi + 1), 'WITHSCORES', 'LIMIT', 0, room)
    else
      due = redis.call('ZRANGEBYSCORE', 'p:' .. l, '-inf', string.format('%d', hi), 'WITHSCORES', 'LIMIT', 0, room)
    end
    local run = {}
    for k = 1, #due, 2 do
      local r = tonumber(due[k + 1]) - l * aging
      run[#run + 1] = { due[k], due[k + 1], r, l }
    end
    if #run > 0 then
      lists[#lists + 1] = run
      -- merge the run's ranks into best (both ascending), keep room
      local merged, i, j = {}, 1, 1
      while #merged < room and (i <= #best or j <= #run) do
        if j > #run or (i <= #best and best[i] <= run[j][3]) then merged[#merged + 1] = best[i]; i = i + 1
        else merged[#merged + 1] = run[j][3]; j = j + 1 end
      end
      best = merged
    end
  end
  -- k-way merge of the runs, take room
  local at = {}
  for r = 1, #lists do at[r] = 1 end
  for k = 1, room do
    local pick = nil
    for r = 1, #lists do
      local e = lists[r][at[r]]
      if e then
        if pick == nil then pick = r else
          local p = lists[pick][at[pick]]
          if e[3] < p[3] or (e[3] == p[3] and (e[4] > p[4] or (e[4] == p[4] and send_rank(e[1]) < send_rank(p[1])))) then pick = r end
        end
      end
    end
    if not pick then break end
    local e = lists[pick][at[pick]]
    at[pick] = at[pick] + 1
    members[k], ids[k], scores[k] = e[1], id_of(e[1]), string.format('%d', tonumber(e[2]))
  end
  if ARGV[4] then return members end
  return #members
end
local due = redis.call('ZRANGEBYSCORE', 'delayed', '(-inf', now, 'WITHSCORES', 'LIMIT', 0, room)
add(due, 4, ranks)
local runs = { { 1, #members } }
for _, level in ipairs(levels) do
  local d = redis.call('ZRANGEBYSCORE', 'p:' .. level, '-inf', now, 'WITHSCORES', 'LIMIT', 0, room)
  local from = #members + 1
  add(d, tonumber(level), ranks)
  runs[#runs + 1] = { from, #members }
end
if variant == 'readonly' then return #members end
local n = #members
local rank, order = {}, {}
for i = 1, n do
  rank[i] = tonumber(scores[i]) - ranks[i] * aging
  order[i] = i
end
if variant == 'sort' then
  table.sort(order, function(x, y)
    if rank[x] ~= rank[y] then return rank[x] < rank[y] end
    if ranks[x] ~= ranks[y] then return ranks[x] > ranks[y] end
    return send_rank(members[x]) < send_rank(members[y])
  end)
elseif variant == 'merge' then
  -- each level's run is already in rank order: take the room lowest by a k-way merge
  local at = {}
  for r = 1, #runs do at[r] = runs[r][1] end
  local taken = {}
  for k = 1, math.min(room, n) do
    local pick = nil
    for r = 1, #runs do
      local i = at[r]
      if i <= runs[r][2] then
        if pick == nil then pick = r else
          local j = at[pick]
          if rank[i] < rank[j] or (rank[i] == rank[j] and (ranks[i] > ranks[j] or (ranks[i] == ranks[j] and send_rank(members[i]) < send_rank(members[j])))) then pick = r end
        end
      end
    end
    taken[k] = at[pick]
    at[pick] = at[pick] + 1
  end
  order = taken
end
local take = math.min(room, n)
local m, d, c = {}, {}, {}
for k = 1, take do
  local i = order[k]
  m[k], d[k], c[k] = members[i], ids[i], scores[i]
end
for i = n, 1, -1 do members[i], ids[i], scores[i] = m[i], d[i], c[i] end
if ARGV[4] then return members end
return take
