#!/bin/bash
# One script in a loop on a Redis of its own (docs/benchmarks.md, issue 37): loads <lua file>, runs it <n> times with
# redis-benchmark (one call at a time), and prints EVALSHA usec_per_call (INFO commandstats) and the Redis server's CPU
# (used_cpu_user + used_cpu_sys) per call. Alternate the variants in turn for several rounds and take the medians.
# Usage: benchmarks/profile/script-loop.sh <port> <lua file> <n> <numkeys> <keys...> <args...>
# (redis-benchmark replaces __rand_int__ in an argument by a random number.)
PORT=$1; F=$2; N=$3; shift 3
R="redis-cli -p $PORT"
SHA=$($R script load "$(cat $F)")
$R config resetstat >/dev/null
cpu() { $R info cpu | awk -F: '/used_cpu_(sys|user):/{s+=$2} END{print s}'; }
C0=$(cpu)
redis-benchmark -p $PORT -c 1 -n $N -r 100000000 -q evalsha $SHA "$@" >/dev/null
C1=$(cpu)
U=$($R info commandstats | grep cmdstat_evalsha: | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')
echo "$(basename $F) usec_per_call=$U cpu_us_per_call=$(echo "($C1-$C0)*1000000/$N" | bc -l | cut -c1-7)"
