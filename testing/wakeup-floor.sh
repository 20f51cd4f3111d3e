#!/usr/bin/env bash
# The machine's own floor for pacing and reflector wake-ups, measured without our code: how late a timed sleep
# wakes up (cyclictest, clock_nanosleep at 2 ms = 500/s and 100 us = 10,000/s, time-shared and SCHED_FIFO) and
# how often a busy loop on one CPU is kept from running (oslat). A pacer cannot be more punctual than a sleep
# that it does not cover with its spin, nor than a busy loop that the host itself interrupts.
#
#   testing/wakeup-floor.sh [--seconds S]
#
# Needs cyclictest and oslat (Debian package rt-tests) and root (SCHED_FIFO); says so and exits 0 when they are
# missing. Prints Markdown on stdout: percentiles of the wake-up latency in us per configuration, and the busy
# loop's stalls by length per second. Exit 0, 2 on bad arguments.
set -euo pipefail

seconds=10
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
        *) echo "usage: testing/wakeup-floor.sh [--seconds S]" >&2; exit 2 ;;
    esac
done
case $seconds in ''|*[!0-9]*|0) echo "wakeup-floor.sh: --seconds: a positive integer expected" >&2; exit 2 ;; esac
if ! command -v cyclictest >/dev/null || ! command -v oslat >/dev/null; then
    echo "wakeup-floor.sh: skipped: cyclictest/oslat not installed (apt-get install rt-tests)" >&2
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "wakeup-floor.sh: skipped: SCHED_FIFO needs root" >&2
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/twping-floor.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, ${seconds} s per configuration, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
echo
echo "| sleep interval | scheduler | wake-ups | p50 | p90 | p99 | p99.9 | max |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for interval in 2000 100; do
    for prio in 0 80; do
        # -h: histogram in 1 us buckets up to 10 ms; -m: locked memory; -q: summary only
        cyclictest -m -t1 -p"$prio" -i"$interval" -D "$seconds" -q -h 10000 >"$work/cyc.txt" 2>&1 || true
        awk -v iv="$interval" -v pr="$prio" '
            /^#/ { if ($0 ~ /Max Latencies/) max = $NF + 0; next }
            NF >= 2 && $1 ~ /^[0-9]+$/ { h[$1 + 0] = $2 + 0; n += $2 }
            END {
                if (n == 0) { printf "| %d us | %s | 0 | | | | | |\n", iv, pr ? "SCHED_FIFO " pr : "time-shared"; exit }
                split("0.5 0.9 0.99 0.999", q, " "); acc = 0; k = 1
                for (i = 0; i <= 10000 && k <= 4; i++) {
                    acc += h[i]
                    while (k <= 4 && acc >= q[k] * n) { v[k] = i; k++ }
                }
                for (; k <= 4; k++) v[k] = ">10000"
                printf "| %d us | %s | %d | %s | %s | %s | %s | %d |\n", iv, pr ? "SCHED_FIFO " pr : "time-shared", n, v[1], v[2], v[3], v[4], max
            }' "$work/cyc.txt"
    done
done
echo
echo "Busy loop on CPU 1 (oslat, SCHED_FIFO 50; its RT throttling gives up the CPU for 50 ms each second):"
echo
oslat -c 1 -C 0 -D "$seconds" -f 50 -b 1024 -q --json="$work/oslat.json" >/dev/null 2>&1 || true
if command -v python3 >/dev/null && [ -s "$work/oslat.json" ]; then
    python3 - "$work/oslat.json" "$seconds" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
seconds = float(sys.argv[2])
thread = list(data["thread"].values())[0]
hist = {int(k): v for k, v in thread["histogram"].items()}
print("| stall of at least | per second |")
print("|---:|---:|")
for us in (20, 50, 100, 200, 500, 1000):
    n = sum(v for k, v in hist.items() if k >= us)
    print(f"| {us} us | {n / seconds:.1f} |")
print(f"\nlongest stall: {thread.get('max')} us")
EOF
else
    echo "(oslat produced no JSON)"
fi
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
