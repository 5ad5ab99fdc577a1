#!/bin/bash
# Issue 37's Redis profile: every command a scenario makes Redis run, script by script.
# Usage (from the repository root, after ./mvnw -B -ntp -pl benchmarks -am -DskipTests package):
#   benchmarks/profile/scripts-by-slowlog.sh <port> <out-prefix> <benchmarks.jar flags...>
# Runs the harness against a Redis of its own on 127.0.0.1:<port> (start one: redis-server --port <port> --save ''
# --appendonly no --daemonize yes), with SLOWLOG recording every command (threshold 0), then writes
# <out-prefix>.cmdstats (INFO commandstats), <out-prefix>.slowlog.json and <out-prefix>.txt (the harness's output),
# and prints per script: calls, messages per call, the commands each call ran, usec per call and per message
# (slowlog-by-script.py). SLOWLOG adds its own cost to every command: read the usec as relative, not absolute.
set -e
PORT=$1; OUT=$2; shift 2
R="redis-cli -p $PORT"
$R config set slowlog-log-slower-than 0 >/dev/null
$R config set slowlog-max-len 2000000 >/dev/null
$R slowlog reset >/dev/null
$R config resetstat >/dev/null
java -jar benchmarks/target/benchmarks.jar --redis-url=redis://127.0.0.1:$PORT --warmup=false "$@" > $OUT.txt 2>&1
$R info commandstats > $OUT.cmdstats
$R --json slowlog get 2000000 > $OUT.slowlog.json
$R config set slowlog-log-slower-than 10000 >/dev/null
$R slowlog reset >/dev/null
python3 "$(dirname "$0")/slowlog-by-script.py" $OUT.slowlog.json
