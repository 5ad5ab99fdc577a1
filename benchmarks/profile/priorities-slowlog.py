"""The priorities scenario's script calls from a SLOWLOG, by side (docs/internals/benchmarks.md, "priorities").

Record it as scripts-by-slowlog.sh does (slowlog-log-slower-than 0 on a Redis of its own, then
redis-cli --json slowlog get N) around a run of --scenarios=priorities --warmup=false --priorities-rounds=1. Each
drain has its own key prefix (bench-<8 hex>-prio or -noprio, the warm-up's drains too, of 20,000): per prefix, the
largest first, and per script (claim, settle, enqueue): calls, messages per call, usec per call (EVALSHA), per message,
of which in the commands the script ran (logged with client "?:0" just before it) and the rest (Lua's own: the
script's code and the conversion of the commands' replies to Lua values), and the commands per call with their usec.
SLOWLOG adds its own cost to every command: read the usec as relative.
Usage: python3 priorities-slowlog.py slowlog.json
"""
import collections, json, re, statistics, sys

def count(args):
    n = len(args)
    m = re.match(r'\.\.\. \((\d+) more arguments\)', args[-1]) if n else None
    return n - 1 + int(m.group(1)) if m else n

entries = json.load(open(sys.argv[1]))
entries.reverse()
inner = []
by = collections.defaultdict(lambda: collections.defaultdict(lambda: {'calls': 0, 'usec': 0, 'inner_usec': 0, 'msgs': 0,
                                                                      'cmds': collections.Counter(), 'cmd_usec': collections.Counter(), 'per_call': []}))
for e in entries:
    _, _, usec, args, client, _ = e
    if client.startswith('?'):
        inner.append((args[0].upper(), args[1] if len(args) > 1 else '', count(args) - 2, usec))
        continue
    if args[0].upper() == 'EVALSHA' and len(args) > 3:
        nk = int(args[2])
        key = args[3]
        m = re.match(r'(bench-[0-9a-f]{8}-(?:no)?prio):', key)
        if not m:
            inner = []
            continue
        prefix = m.group(1)
        argv = args[3 + nk:]
        if nk == 11 and argv and argv[0][:1] == '{':
            name = 'claim'
        elif nk == 11:
            name = 'settle'
        elif nk == 10:
            name = 'enqueue'
        else:
            name = 'other%d' % nk
        s = by[prefix][name]
        s['calls'] += 1
        s['usec'] += usec
        s['per_call'].append(usec)
        msgs = 0
        for cmd, k, n, u in inner:
            s['cmds'][cmd] += 1
            s['cmd_usec'][cmd] += u
            s['inner_usec'] += u
            if name == 'claim' and cmd == 'HMGET' and k.endswith(':messages'):
                msgs = n
        if name == 'settle':
            msgs = count(args) - 3 - nk - 1
        if name == 'enqueue':
            msgs = (count(args) - 3 - nk - 2) // 3
        s['msgs'] += msgs
    inner = []

for prefix, scripts in sorted(by.items(), key=lambda kv: -sum(s['msgs'] for s in kv[1].values())):
    total = sum(s['msgs'] for n, s in scripts.items() if n == 'claim')
    print('==', prefix, 'claimed', total)
    for name, s in sorted(scripts.items()):
        c = s['calls']
        if c == 0: continue
        msgs = s['msgs'] or 1
        print('  %-8s calls=%d msgs/call=%.1f usec/call=%.1f (median %.1f) usec/msg=%.2f inner_usec/msg=%.2f lua_usec/msg=%.2f' % (
            name, c, s['msgs'] / c, s['usec'] / c, statistics.median(s['per_call']), s['usec'] / msgs, s['inner_usec'] / msgs,
            (s['usec'] - s['inner_usec']) / msgs))
        print('           per call: ' + ' '.join('%s=%.2f(%.1fus)' % (k, v / c, s['cmd_usec'][k] / c) for k, v in s['cmds'].most_common()))
