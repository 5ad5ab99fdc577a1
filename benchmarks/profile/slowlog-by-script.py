"""Groups a SLOWLOG (redis-cli --json slowlog get N, recorded with slowlog-log-slower-than 0) by script.

The commands a script runs are logged (client "?:0") just before the EVALSHA that ran them. A script is named by the
SHA-1 of our scripts' expanded text (Scripts.source) when given as arguments (name=file), else by its keys: the
floor's (FloorSide) by their key names, ours by key count. Messages per call: enqueue (arguments - 2) / 3, floor send
(arguments - 1) / 2, settle and floor ack the entries, claims the ids of the HMGET of envelopes or bodies. The median
of the calls' usec per message is less moved by Redis being preempted inside a call on a loaded box than the mean.
Usage: python3 slowlog-by-script.py slowlog.json [name=script.lua ...]
"""
import collections
import hashlib
import json
import re
import statistics
import sys

shas = {}
for arg in sys.argv[2:]:
    name, path = arg.split('=', 1)
    shas[hashlib.sha1(open(path, 'rb').read()).hexdigest()] = name


def count(args):
    """Arguments of a logged command: SLOWLOG keeps 32 and says how many more there were."""
    n = len(args)
    m = re.match(r'\.\.\. \((\d+) more arguments\)', args[-1]) if n else None
    return n - 1 + int(m.group(1)) if m else n


def script(args):
    sha, nk = args[1].lower(), int(args[2])
    keys = args[3:3 + nk]
    if sha in shas:
        return shas[sha]
    if nk == 2 and keys[0].endswith(':due'):
        return 'floor-send'
    if nk == 3 and keys[0].endswith(':due'):
        return 'floor-claim'
    if nk == 2 and keys[0].endswith(':inflight'):
        return 'floor-ack'
    argv = args[3 + nk:]
    if nk == 10 and len(argv) >= 2 and argv[1] in ('0', '1'):
        return 'enqueue'
    if nk >= 10 and len(argv) >= 2 and argv[1][:1] in 'AaRDHL' and ':' in argv[1]:
        return 'settle'
    if nk == 11 and len(argv) >= 12:
        return 'claim'
    return 'other-' + sha[:8]


def messages(name, args, inner):
    nk = int(args[2])
    na = count(args) - 3 - nk
    if name == 'enqueue':
        return (na - 2) // 3
    if name == 'floor-send':
        return (na - 1) // 2
    if name == 'floor-ack':
        return na
    if name == 'settle':  # an ack is one argument; retries and dead letters (two) are rare in these scenarios
        return na - 1
    if name in ('claim', 'floor-claim'):
        for cmd, key, n, _ in inner:
            if cmd == 'HMGET' and (key.endswith(':messages') or key.endswith(':bodies')):
                return n
    return 0


entries = json.load(open(sys.argv[1]))
entries.reverse()  # oldest first
stats = collections.defaultdict(lambda: {'calls': 0, 'usec': 0, 'msgs': 0, 'cmds': collections.Counter(), 'inner': 0,
                                         'per_msg': []})
inner = []
for _, _, usec, args, client, _ in entries:
    if client.startswith('?'):  # run by a script
        inner.append((args[0].upper(), args[1] if len(args) > 1 else '', count(args) - 2, usec))
        continue
    if args[0].upper() == 'EVALSHA':
        name = script(args)
        s = stats[name]
        s['calls'] += 1
        s['usec'] += usec
        m = messages(name, args, inner)
        s['msgs'] += m
        if m > 0:
            s['per_msg'].append(usec / m)
        for cmd, _, _, u in inner:
            s['cmds'][cmd] += 1
            s['inner'] += u
    inner = []
for name, s in sorted(stats.items()):
    c = s['calls']
    cmds = ' '.join('%s=%.2f' % (k, v / c) for k, v in s['cmds'].most_common())
    median = statistics.median(s['per_msg']) if s['per_msg'] else float('nan')
    print('%-12s calls=%d msgs/call=%.1f usec/call=%.1f usec/msg=%.2f median_call_usec/msg=%.2f commands_usec/call=%.1f '
          'commands/call: %s' % (name, c, s['msgs'] / c, s['usec'] / c, s['usec'] / max(s['msgs'], 1), median,
                                 s['inner'] / c, cmds))
