-- The arithmetic of a GCRA rate limit (flow.lua for the queue, groups.lua per group): a theoretical arrival time
-- `tat` in whole microseconds on the Redis clock, a permit `interval` and a `tolerance` ((burst - 1) * interval) in
-- microseconds, which need not be whole (30/1s: 33,333.33 us).
-- The clock's microseconds are near 2^51, where a double holds only quarter microseconds: a sum of the clock and an
-- interval loses the interval's fraction. So the clock and tat are only ever subtracted from each other (exact, both
-- whole), and tat moves by whole microseconds, rounded up (a permit may come up to 1 us late, never early).

-- Permits free at now_us, and the arrival time they are counted from (never before now_us). The tolerance is
-- (burst - 1) intervals, so it counts as that whole number of permits (rounded, as a double quotient may be a hair
-- below it); the rest, now_us - tat, is exact, so no slack is needed and no permit comes early.
local function gcra_permits(interval, tolerance, tat, now_us)
  tat = math.max(tat, now_us)
  return math.floor((now_us - tat) / interval) + math.floor(tolerance / interval + 0.5) + 1, tat
end

-- The arrival time after `taken` more permits, as the whole microseconds stored (rounded up: never earlier).
local function gcra_spend(tat, taken, interval)
  return tat + math.ceil(taken * interval)
end
