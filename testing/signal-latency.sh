#!/usr/bin/env bash
# From SIGINT to the printed partial summary: how long a running twping takes to answer Ctrl-C.
#
#   testing/signal-latency.sh [--runs N] [--twampd-port PORT] [--second-after MS] [--trace] [--fifo PRIO] [--stamp]
#
# Starts our twampd on 127.0.0.1 (open mode, foreground, stopped at the end), then N times (default 10) runs
# `./twping -c 100000 -i 0.01 127.0.0.1:PORT`, waits until its session has run for 1 s, sends SIGINT and
# measures, from the kill(2) call: the first byte of the partial summary on stdout, and the exit (C's stdout
# is fully buffered on a pipe, so its summary arrives as it exits). With
# --second-after MS a second SIGINT follows the first after MS milliseconds (two Ctrl-C presses): C twping
# has printed its summary by then and exits 0; a client that has not exits 2 and loses the results. When
# TWPING_C is set, the C client is measured the same way, alternating with ours, against the same server.
# With --trace, our client runs with -Dtwping.stopTrace=true and each of its runs also prints, on stderr, the
# steps it recorded from the signal to the exit (ms after the kill: the signal handler, the session's threads
# leaving, Stop-Sessions, the statistics, the summary, ...; time.StopTrace) for attributing the time.
# With --fifo PRIO, both clients run under `chrt -f PRIO` (SCHED_FIFO; root or CAP_SYS_NICE): the other work of
# a loaded machine then no longer delays them, which approximates a quiet machine (the server stays time-shared).
# With --stamp, the STAMP client path instead (`./twping -c 100000 -i 0.01 --stamp 127.0.0.1:PORT` against our
# `twampd --stamp` on that port; C twping has no STAMP, so TWPING_C is not used then).
# Prints a Markdown table (min / median / max per client and the exit statuses) and the load average before
# and after. Exit 0, 1 when a run failed to start, 2 on bad arguments.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=10
port=18770
second=""
trace=""
fifo=""
stamp=""
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=${2:?--runs needs a value}; shift 2 ;;
        --twampd-port) port=${2:?--twampd-port needs a value}; shift 2 ;;
        --second-after) second=${2:?--second-after needs a value}; shift 2 ;;
        --trace) trace=1; shift ;;
        --fifo) fifo=${2:?--fifo needs a value}; shift 2 ;;
        --stamp) stamp=--stamp; shift ;;
        *) echo "usage: testing/signal-latency.sh [--runs N] [--twampd-port PORT] [--second-after MS] [--trace] [--fifo PRIO] [--stamp]" >&2; exit 2 ;;
    esac
done
case $runs in ''|*[!0-9]*|0) echo "signal-latency.sh: --runs: a positive integer expected" >&2; exit 2 ;; esac
case $port in ''|*[!0-9]*) echo "signal-latency.sh: --twampd-port: a port number expected" >&2; exit 2 ;; esac
case $second in *[!0-9]*) echo "signal-latency.sh: --second-after: milliseconds expected" >&2; exit 2 ;; esac
case $fifo in *[!0-9]*) echo "signal-latency.sh: --fifo: a priority 1-99 expected" >&2; exit 2 ;; esac
wrap=()
if [ -n "$fifo" ]; then
    chrt -f "$fifo" true 2>/dev/null || { echo "signal-latency.sh: --fifo: chrt -f $fifo is not permitted here" >&2; exit 1; }
    wrap=(chrt -f "$fifo")
fi
command -v python3 >/dev/null || { echo "signal-latency.sh: python3 is needed for the timing" >&2; exit 1; }

. "$root/testing/lib/local-twampd.sh"
local_twampd signal-latency "$port" $stamp

# One run: prints "<ms to first summary byte> <ms to exit> <exit status>" (-1 when no summary came).
cat >"$work/one.py" <<'PY'
import os, select, signal, subprocess, sys, time
argv, second, trace = sys.argv[3:], sys.argv[1], sys.argv[2] == "1"
env = dict(os.environ)
if trace:
    env["TWPING_JAVA_OPTS"] = (env.get("TWPING_JAVA_OPTS", "") + " -Dtwping.stopTrace=true").strip()
p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE if trace else subprocess.DEVNULL, env=env)
fd = p.stdout.fileno()
buf = b""
deadline = time.monotonic() + 5
# the session runs once the "Approximately ... until results available" line is out and the start passed
while b"until results available" not in buf and time.monotonic() < deadline:
    r, _, _ = select.select([fd], [], [], 0.5)
    if r:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
# (C's stdout is fully buffered on a pipe: its line comes only at exit; the 5 s then cover its start too)
if p.poll() is not None:
    print("-1 -1 start"); sys.exit(0)
time.sleep(2.5)  # the start time (about 1 s after the line) and 1 s of the session
while select.select([fd], [], [], 0)[0]:  # drain what came before the signal
    if not os.read(fd, 65536):
        break
t0 = time.monotonic()
t0ns = time.monotonic_ns()  # CLOCK_MONOTONIC, as Java's System.nanoTime() on Linux
p.send_signal(signal.SIGINT)
if second:
    time.sleep(int(second) / 1000)
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
first = None
while time.monotonic() - t0 < 10:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        if first is None:
            first = time.monotonic()
rc = p.wait(timeout=10)
end = time.monotonic()
if trace:
    steps = []
    for line in p.stderr.read().decode("utf-8", "replace").splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "stop-trace":
            steps.append("%s %.1f" % (f[1], (int(f[2]) - t0ns) / 1e6))
    print("trace (ms after the kill): " + ", ".join(steps), file=sys.stderr)
print("%.1f %.1f %d" % (-1 if first is None else (first - t0) * 1000, (end - t0) * 1000, rc))
PY

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
ours=()
theirs=()
for i in $(seq "$runs"); do
    ours+=("$(python3 "$work/one.py" "$second" "$trace" ${wrap[@]+"${wrap[@]}"} "$root/twping" -c 100000 -i 0.01 $stamp "127.0.0.1:$port")")
    if [ -n "${TWPING_C:-}" ] && [ -z "$stamp" ]; then
        theirs+=("$(python3 "$work/one.py" "$second" "" ${wrap[@]+"${wrap[@]}"} "$TWPING_C" -c 100000 -i 0.01 "127.0.0.1:$port")")
    fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

summarise() { # label result...
    local label=$1
    shift
    printf '%s\n' "$@" | python3 -c '
import sys
label = sys.argv[1]
rows = [l.split() for l in sys.stdin if l.strip()]
def col(i):
    v = sorted(float(r[i]) for r in rows if float(r[i]) >= 0)
    return "n/a" if not v else "%.1f / %.1f / %.1f" % (v[0], v[len(v) // 2], v[-1])
codes = ",".join(r[2] for r in rows)
print("| %s | %s | %s | %s |" % (label, col(0), col(1), codes))
' "$label"
}
echo "SIGINT after 1 s of a ${stamp:+STAMP }session, ${runs} runs${second:+, a second SIGINT ${second} ms after the first}${fifo:+, clients under SCHED_FIFO $fifo}; $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs"
echo
echo "| client | to summary ms (min / median / max) | to exit ms | exit statuses |"
echo "|---|---|---|---|"
summarise "twping (ours)" "${ours[@]}"
if [ ${#theirs[@]} -gt 0 ]; then
    summarise "twping (C)" "${theirs[@]}"
fi
echo
echo "load average before: $load_before, after: $load_after"
