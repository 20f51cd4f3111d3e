"""Who kept the reflector off its CPU: one traced session of testing/sched-trace.sh.

Reads DIR/R (our client's -R records), DIR/pid (our client's process id) and DIR/trace (tracefs text with
sched_switch and sched_waking, clock tai, record-tgid). For every packet whose forward delay (T2 - T1) exceeds the
threshold it finds the reflector's wake-up after our send (sched_waking of a task named twampd), the CPU it was
woken on and the tasks that ran there until the reflector did; their run times are summed by who they were: our
JIT compiler threads, our other threads, the reflector itself, other processes, idle. Prints one line:

  label round p50 p99 p99.9 max outliers jit_us ours_us reflector_us other_us no_wake

(microseconds; no_wake: outliers with no reflector wake-up in the trace, i.e. it was already running.)

With a fifth argument INTERVAL_S (a fixed schedule's interval, seconds) it explains the send lateness instead: each
packet's lateness is its send time T1 less the schedule re-created from the records (packet i at base + i * interval,
base the earliest T1 - i * interval, so the least late packet counts 0), and for every packet later than the
threshold it sums what ran on the sender thread's CPU from 100 µs before the packet's scheduled time to its send, and
counts the outliers whose sender was still asleep at the scheduled time (woken late: the timer, or the host). Prints:

  label round p50 p99 p99.9 max outliers jit_us ours_us reflector_us other_us woken_late
"""
import bisect
import re
import sys

NTP_UNIX = 2208988800
LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\(\s*(\S+)\)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (sched_\w+): (.*)$')
WAKING = re.compile(r'comm=(.+?) pid=(\d+) .*target_cpu=(\d+)')
SWITCH = re.compile(r'prev_comm=(.+?) prev_pid=(\d+) .*next_comm=(.+?) next_pid=(\d+)')


def ntp_seconds(field):
    v = int(field)
    return (v >> 32) - NTP_UNIX + (v & 0xffffffff) / 2 ** 32


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def read_trace(directory):
    events, tgid = [], {}
    for line in open(directory + '/trace'):
        m = LINE.match(line)
        if not m:
            continue
        pid = int(m.group(2))
        if m.group(3).isdigit():
            tgid[pid] = int(m.group(3))
        events.append((float(m.group(5)), int(m.group(4)), m.group(6), m.group(7)))
    return events, tgid


def classifier(tgid, ours):
    """Who a task is: idle, our JIT's compiler threads, our other threads, the C reflector, or another process."""
    def who(comm, pid):
        if comm.startswith('swapper'):
            return 'idle'
        if tgid.get(pid) == ours:
            return 'jit' if 'CompilerThre' in comm else 'ours'
        if comm == 'twampd':
            return 'reflector'
        return 'other'
    return who


def traced(directory, ours):
    """The session's scheduler events, their times, the classifier of their tasks, and empty blame sums."""
    events, tgid = read_trace(directory)
    blame = {'jit': 0.0, 'ours': 0.0, 'reflector': 0.0, 'other': 0.0, 'idle': 0.0}
    return events, [e[0] for e in events], classifier(tgid, ours), blame


def lateness(directory, label, rnd, threshold_us, interval_s):
    ours = int(open(directory + '/pid').read())
    sends = []
    for line in open(directory + '/R'):
        f = line.split()
        if len(f) > 4 and f[0].isdigit() and f[1] != '0':
            sends.append((int(f[0]), ntp_seconds(f[1])))
    if not sends:
        print(label, rnd, 'no records')
        return
    base = min(t1 - i * interval_s for i, t1 in sends)
    late = [(base + i * interval_s, t1, (t1 - base - i * interval_s) * 1e6) for i, t1 in sends]
    events, times, who, blame = traced(directory, ours)
    woken_late = 0
    outliers = [x for x in late if x[2] > threshold_us]
    for sched, t1, _ in outliers:
        lo = bisect.bisect_left(times, sched - 0.05)
        hi = bisect.bisect_right(times, t1)
        cpu, sender, asleep = None, None, False
        for e in events[lo:hi]:       # where the sender last ran, and whether it slept through its time
            if e[2] == 'sched_switch':
                m = SWITCH.search(e[3])
                if not m:
                    continue
                if m.group(3) == 'twping-sender' and who(m.group(3), int(m.group(4))) == 'ours':
                    cpu, sender = e[1], int(m.group(4))
                    asleep = False
                elif (m.group(1) == 'twping-sender' and who(m.group(1), int(m.group(2))) == 'ours'
                      and ' prev_state=R' not in e[3]):
                    asleep = e[0] < sched
            elif e[2] == 'sched_waking' and sender is not None:
                m = WAKING.search(e[3])
                if m and int(m.group(2)) == sender and e[0] > sched:
                    woken_late += 1 if asleep else 0
                    asleep = False
        if cpu is None:
            continue
        last = max(sched - 100e-6, times[lo] if lo < len(times) else sched)
        for e in events[bisect.bisect_left(times, sched - 100e-6):hi]:
            if e[1] != cpu or e[2] != 'sched_switch':
                continue
            m = SWITCH.search(e[3])
            if not m:
                continue
            if int(m.group(2)) != sender:
                blame[who(m.group(1), int(m.group(2)))] += (e[0] - last) * 1e6
            last = e[0]
    v = sorted(x[2] for x in late)
    print('%s %s %.1f %.1f %.1f %.1f %d %.0f %.0f %.0f %.0f %d' % (
        label, rnd, percentile(v, 0.5), percentile(v, 0.99), percentile(v, 0.999), v[-1], len(outliers),
        blame['jit'], blame['ours'], blame['reflector'], blame['other'], woken_late))


def main(directory, label, rnd, threshold_us):
    ours = int(open(directory + '/pid').read())
    forward = []
    for line in open(directory + '/R'):
        f = line.split()
        if len(f) > 4 and f[4] != '0':
            t1 = ntp_seconds(f[1])
            forward.append((t1, (ntp_seconds(f[4]) - t1) * 1e6))
    if not forward:
        print(label, rnd, 'no replies')
        return
    events, times, who, blame = traced(directory, ours)
    no_wake = 0
    outliers = [x for x in forward if x[1] > threshold_us]
    for t1, fwd in outliers:
        lo = bisect.bisect_left(times, t1 - 20e-6)
        hi = bisect.bisect_left(times, t1 + fwd / 1e6 + 300e-6)
        wake = None
        for e in events[lo:hi]:
            if e[2] == 'sched_waking':
                m = WAKING.search(e[3])
                if m and m.group(1) == 'twampd':
                    wake = (e[0], int(m.group(2)), int(m.group(3)))
                    break
        if wake is None:
            no_wake += 1
            continue
        at, pid, cpu = wake
        last = at
        for e in events[lo:hi]:
            if e[0] < at or e[1] != cpu or e[2] != 'sched_switch':
                continue
            m = SWITCH.search(e[3])
            if not m:
                continue
            blame[who(m.group(1), int(m.group(2)))] += (e[0] - last) * 1e6
            last = e[0]
            if int(m.group(4)) == pid:
                break
    v = sorted(x[1] for x in forward)
    print('%s %s %.1f %.1f %.1f %.1f %d %.0f %.0f %.0f %.0f %d' % (
        label, rnd, percentile(v, 0.5), percentile(v, 0.99), percentile(v, 0.999), v[-1], len(outliers),
        blame['jit'], blame['ours'], blame['reflector'], blame['other'], no_wake))


if __name__ == '__main__':
    if len(sys.argv) > 5:
        lateness(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]))
