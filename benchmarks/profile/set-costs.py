"""Where a job set's Redis CPU goes (docs/internals/benchmarks.md, "set-completion"): each part a set adds to its
members' life, in a loop of its own against plain messages, on a Redis of its own (it runs FLUSHALL between loops).

Every loop runs one script (or command) for 100,000 members, one call at a time, and reads the server's Redis CPU
(INFO cpu: used_cpu_sys + used_cpu_user) before and after; a round runs every loop once, and the medians of the rounds
are printed last. The scripts are delayqueue's own with their includes expanded (Scripts.source, from the built jar):
  settle        500 acks a call; a setup in the same script first writes them in flight (lease, attempt, envelope),
                as benchmarks/profile/settle-setup.lua does; "setup only" is that part alone. Variants: plain acks
                ("a1:<member>"), set members' acks ("S<set id>" before each: settle.lua writes their marks), and the
                same with the ZADD of the marks taken out of a copy of settle.lua; ", DEL": the setup first deletes
                the previous call's marks, as the forward's ZREM would (so the marks' sorted set stays at 500)
  claim         256 due messages a call (benchmarks/profile/claim-setup.lua first), envelopes with and without the
                set's header ("dq-set"); "setup only": claim-setup.lua alone
  send          enqueue.lua, 500 messages a call (100-char payloads), bodies with and without the set's header
  set.lua add   1,000 members a call into one set (what sendSet does before sending them)
  set.lua marks 500 acknowledgements a call on those members (what the settler's forward does)
  ZADD+ZREM     500 marks written and deleted (the forward's ZREM), top-level commands; ZADD+DEL for contrast
Usage (from the repository root, after ./mvnw -B -ntp -pl benchmarks -am -DskipTests package):
  redis-server --port 6412 --save '' --appendonly no --daemonize yes
  python3 benchmarks/profile/set-costs.py 6412 7
"""
import os
import random
import socket
import statistics
import string
import subprocess
import sys
import tempfile

PORT = int(sys.argv[1])
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.file = self.sock.makefile('rb')

    @staticmethod
    def encode(args):
        out = [b'*%d\r\n' % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b'$%d\r\n%s\r\n' % (len(a), a))
        return b''.join(out)

    def call(self, *args):
        self.sock.sendall(self.encode(args))
        return self.read()

    def read(self):
        line = self.file.readline()
        kind, rest = line[:1], line[1:-2]
        if kind == b'+':
            return rest.decode()
        if kind == b'-':
            raise RuntimeError(rest.decode())
        if kind == b':':
            return int(rest)
        if kind == b'$':
            n = int(rest)
            return None if n < 0 else self.file.read(n + 2)[:-2].decode('latin1')
        if kind == b'*':
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError('unexpected reply %r' % line)

    def cpu(self):
        info = dict(l.split(':', 1) for l in self.call('INFO', 'cpu').split('\r\n') if ':' in l)
        return float(info['used_cpu_sys']) + float(info['used_cpu_user'])


def expanded(names):
    """The scripts with their includes expanded, as the engine loads them (Scripts.source)."""
    target = os.path.join(ROOT, 'benchmarks', 'target')
    cp = os.path.join(target, 'benchmarks.jar') + os.pathsep + os.path.join(target, 'lib', '*')
    out = tempfile.mkdtemp(prefix='set-costs-')
    src = os.path.join(out, 'Source.java')
    with open(src, 'w') as f:
        f.write('public class Source { public static void main(String[] a) throws Exception { for (String n : a) '
                'java.nio.file.Files.writeString(java.nio.file.Path.of("%s", n), '
                'io.github.delayqueue.core.protocol.Scripts.source(n)); } }' % out)
    subprocess.run(['java', '-cp', cp, src] + names, check=True)
    return {n: open(os.path.join(out, n)).read() for n in names}


SETTLE_SETUP = '''-- every "a1:~" op of ARGV (from 2) becomes a fresh live in-flight delivery; "S<set>" entries pass through
local newargv = {ARGV[1]}
do
  local n = 0
  for j = 2, #ARGV do if string.sub(ARGV[j], 1, 1) == 'a' then n = n + 1 end end
  local base = redis.call('INCRBY', KEYS[12], n) - n
  local z, a, m, k = {}, {}, {}, 0
  for j = 2, #ARGV do
    local e = ARGV[j]
    if string.sub(e, 1, 1) == 'a' then
      k = k + 1
      local id = string.format('%016x', base + k)
      local member = '~00000000' .. id
      newargv[#newargv + 1] = 'a1:' .. member
      z[#z + 1] = '1795748322035'; z[#z + 1] = member
      a[#a + 1] = id; a[#a + 1] = '1'
      m[#m + 1] = id; m[#m + 1] = '200000000--------0:"m-1-' .. string.rep('x', 96) .. '"'
    else
      newargv[#newargv + 1] = e
    end
  end
  redis.call('ZADD', KEYS[3], unpack(z))
  redis.call('HSET', KEYS[4], unpack(a))
  redis.call('HSET', KEYS[1], unpack(m))
end
'''
DEL_MARKS = "redis.call('DEL', string.sub(KEYS[1], 1, -9) .. 'set-marks')\n"
MARKS_LINE = '  set_marks(s.keys, s.now, marks)\n'

lua = expanded(['settle.lua', 'claim.lua', 'enqueue.lua', 'set.lua'])
settle = lua['settle.lua'].replace('settle_open(KEYS, ARGV)', 'settle_open(KEYS, newargv)')
assert settle.count(MARKS_LINE) == 1, 'settle.lua changed: update this script'
no_marks = settle.replace(MARKS_LINE, '  -- the marks are not written in this variant\n')
claim_setup = open(os.path.join(HERE, 'claim-setup.lua')).read()
header = claim_setup.replace("'--------0:\"m-1-", "'--------16:{\"dq-set\":\"big\"}\"m-1-")
assert header != claim_setup, 'claim-setup.lua changed: update this script'

r = Redis(PORT)
r.call('FLUSHALL')
sha = {name: r.call('SCRIPT', 'LOAD', text) for name, text in {
    'settle': SETTLE_SETUP + settle, 'settle-nomarks': SETTLE_SETUP + no_marks, 'setup': SETTLE_SETUP + 'return 1\n',
    'settle-del': DEL_MARKS + SETTLE_SETUP + settle, 'settle-nomarks-del': DEL_MARKS + SETTLE_SETUP + no_marks,
    'claim': claim_setup + lua['claim.lua'], 'claim-header': header + lua['claim.lua'],
    'claim-setup': claim_setup + 'return 1\n',
    'enqueue': lua['enqueue.lua'], 'set': lua['set.lua']}.items()}
Q = 'L:{q}:'
QK = [Q + k for k in ('messages', 'delayed', 'inflight', 'attempts', 'errors', 'dead', 'dead-messages', 'dead-reasons',
                      'sequence', 'paused', 'flow')]
SK = ['L:set:{big}:state', 'L:set:{big}:dead', 'L:set:{big}:deaths']
CLAIM = ('{"n":256,"lease":30000,"attempts":5,"reap":256,"dead_ms":1209600000,"dead_max":100000,"bytes":1048576,'
         '"expired":"dead","house":false}')
B, CALLS = 500, 200
rnd = random.Random(1)


def ident():
    return ''.join(rnd.choice(string.ascii_letters + string.digits + '-_') for _ in range(16))


def per_member(run, members):
    c0 = r.cpu()
    run()
    c1 = r.cpu()
    r.call('FLUSHALL')
    return (c1 - c0) * 1e6 / members


def settle_loop(name, in_set):
    args = ['wch']
    for _ in range(B):
        args += (['Sbig'] if in_set else []) + ['a1:~']
    return per_member(lambda: [r.call('EVALSHA', sha[name], 12, *QK, Q + 'ctr', *args) for _ in range(CALLS)], B * CALLS)


def claim_loop(name):
    return per_member(lambda: [r.call('EVALSHA', sha[name], 11, *QK, CLAIM) for _ in range(400)], 400 * 256)


def send_loop(in_set):
    calls = []
    for c in range(CALLS):
        args = ['wch', '0']
        for i in range(B):
            tag = 'm-%d-' % (c * B + i)
            args += [ident(), '+0', ('16:{"dq-set":"big"}' if in_set else '0:') + '"' + tag + 'x' * (100 - len(tag)) + '"']
        calls.append(args)
    return per_member(lambda: [r.call('EVALSHA', sha['enqueue'], 10, *QK[:10], *a) for a in calls], B * CALLS)


def set_loops():
    r.call('EVALSHA', sha['set'], 3, *SK, 'open', '604800000', 'callbacks\x1f0\x1f\x1fbig:success\x1f2:{}"done"', '', '',
           '')
    members = ['q:' + ident() for _ in range(B * CALLS)]
    c0 = r.cpu()
    for i in range(0, len(members), 1000):
        r.call('EVALSHA', sha['set'], 3, *SK, 'add', *members[i:i + 1000])
    c1 = r.cpu()
    for i in range(0, len(members), B):
        r.call('EVALSHA', sha['set'], 3, *SK, 'marks', *['A' + m for m in members[i:i + B]])
    c2 = r.cpu()
    status = r.call('EVALSHA', sha['set'], 3, *SK, 'read', '0')
    assert int(status[2]) == len(members), status  # every member counted acknowledged once
    r.call('FLUSHALL')
    return (c1 - c0) * 1e6 / len(members), (c2 - c1) * 1e6 / len(members)


def marks_loop(delete):
    chunks = [['Abig\x1f' + ident() for _ in range(B)] for _ in range(CALLS)]

    def run():
        for chunk in chunks:
            add = ['ZADD', Q + 'set-marks']
            for m in chunk:
                add += ['1795748322035', m]
            r.call(*add)
            r.call(*(['ZREM', Q + 'set-marks'] + chunk if delete else ['DEL', Q + 'set-marks']))
    return per_member(run, B * CALLS)


results = {}
for n in range(ROUNDS):
    row = {
        'settle plain': settle_loop('settle', False),
        'settle set': settle_loop('settle', True),
        'settle set, no marks': settle_loop('settle-nomarks', True),
        'settle set, DEL': settle_loop('settle-del', True),
        'settle set, no marks, DEL': settle_loop('settle-nomarks-del', True),
        'setup only': settle_loop('setup', False),
        'setup only, set': settle_loop('setup', True),
        'claim plain': claim_loop('claim'),
        'claim set': claim_loop('claim-header'),
        'claim setup only': claim_loop('claim-setup'),
        'send plain': send_loop(False),
        'send set': send_loop(True),
    }
    row['set.lua add'], row['set.lua marks'] = set_loops()
    row['ZADD+ZREM marks'] = marks_loop(True)
    row['ZADD+DEL marks'] = marks_loop(False)
    for k, v in row.items():
        results.setdefault(k, []).append(v)
    print('round %d: %s' % (n + 1, ' '.join('%s=%.2f' % (k.replace(' ', '_'), v) for k, v in row.items())), flush=True)
print('\nRedis CPU per member (µs), medians of %d rounds:' % ROUNDS)
for k, v in results.items():
    print('  %-26s %5.2f  (%s)' % (k, statistics.median(v), ', '.join('%.2f' % x for x in v)))
