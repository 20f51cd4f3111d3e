#!/usr/bin/env bash
# The delay breakdown under a CPU hog on the sender's CPU (docs/STATISTICS.md, delay breakdown; docs/TESTING.md):
# ./twping --stamp --tlv ts,fut against ./twampd --stamp on loopback, the sender and receiver threads pinned to one
# CPU (--cpu) and the reflector to another (taskset), ROUNDS times without and ROUNDS times with
# `stress-ng --cpu HOGS` pinned to the sender's CPU. Prints per component p50 and p99 (from --json) of every round,
# then the verdict: the sender's parts (pacing lateness, sender stack, receiver wake-up) should grow under the hog
# while the network parts (forward, back: kernel stamp to kernel stamp) stay flat. A stand, not a unit test: its
# figures depend on the machine and its load, which it prints.
#
#   testing/breakdown-cpu-hog.sh [--rounds N] [--count C] [--interval SECONDS] [--hogs N] [--cpus SENDER,REFLECTOR]
#
# Defaults: 2 rounds, 2000 packets every 0.002 s, 4 hogs, CPUs 0,1. Needs stress-ng, taskset, python3, and the
# jars (./mvnw -DskipTests package). Exit 0 when the verdict holds, 1 when it does not, 2 on a usage error.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rounds=2 count=2000 interval=0.002 hogs=4 cpus=0,1
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --interval) interval=$2; shift 2 ;;
        --hogs) hogs=$2; shift 2 ;;
        --cpus) cpus=$2; shift 2 ;;
        *) echo "breakdown-cpu-hog.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
sender_cpu=${cpus%%,*} reflector_cpu=${cpus##*,}
for tool in stress-ng taskset python3; do
    command -v "$tool" >/dev/null || { echo "breakdown-cpu-hog.sh: needs $tool" >&2; exit 2; }
done
[ -f "$root/core/target/twping.jar" ] || { echo "breakdown-cpu-hog.sh: build core/target/twping.jar first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/breakdown-hog.XXXXXX")
pid="" hog=""
cleanup() {
    [ -n "$hog" ] && kill -TERM "$hog" 2>/dev/null && wait "$hog" 2>/dev/null || true
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

TWAMPD_READY_FILE="$work/ready" taskset -c "$reflector_cpu" "$root/twampd" --stamp 127.0.0.1:0 \
    >"$work/twampd.out" 2>"$work/twampd.err" &
pid=$!
for _ in $(seq 1 150); do
    [ -s "$work/ready" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/twampd.err" >&2; exit 1; }
    sleep 0.2
done
[ -s "$work/ready" ] || { echo "breakdown-cpu-hog.sh: twampd did not start" >&2; exit 1; }
port=$(cat "$work/ready")
echo "$(date -u +%FT%TZ) $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sender CPU $sender_cpu, reflector CPU $reflector_cpu, $count packets every ${interval} s, hog: stress-ng --cpu $hogs"

run() {                                           # run NAME: one session, its --json in $work/NAME.json
    "$root/twping" --stamp "127.0.0.1:$port" --tlv ts,fut --cpu "$sender_cpu" -c "$count" -i "${interval}f" -L 2 \
        -Q --json "$work/$1.json" >/dev/null 2>"$work/$1.err" \
        || { echo "breakdown-cpu-hog.sh: twping failed:" >&2; cat "$work/$1.err" >&2; exit 1; }
}
for r in $(seq 1 "$rounds"); do
    run "quiet-$r"
    taskset -c "$sender_cpu" stress-ng --cpu "$hogs" --timeout 600s --quiet &
    hog=$!
    sleep 1                                       # the hogs running before the session starts
    run "hog-$r"
    kill -TERM "$hog" 2>/dev/null; wait "$hog" 2>/dev/null || true
    hog=""
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work" "$rounds" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
parts = ["pacing_lateness", "sender_stack", "forward", "reflector_residence", "reflector_stack", "back",
         "receiver_wakeup"]
def load(name):
    b = json.load(open(f"{work}/{name}.json"))["breakdown"]
    return {p: b["components"][p]["distribution"] for p in parts}, b["dominant_p99"]
def us(v):
    return "-" if v is None else f"{v / 1000:.1f}"
print("| round | " + " | ".join(f"{p} p50/p99 us" for p in parts) + " | dominant p99 |")
print("|---|" + "---:|" * len(parts) + "---|")
medians = {"quiet": {p: [] for p in parts}, "hog": {p: [] for p in parts}}
for kind in ("quiet", "hog"):
    for r in range(1, rounds + 1):
        d, dominant = load(f"{kind}-{r}")
        print(f"| {kind} {r} | " + " | ".join(f"{us(d[p]['p50_ns'])}/{us(d[p]['p99_ns'])}" for p in parts)
              + f" | {dominant} |")
        for p in parts:
            if d[p]["p99_ns"] is not None:
                medians[kind][p].append(d[p]["p99_ns"])
def p99(kind, p):
    v = medians[kind][p]
    return statistics.median(v) if v else None
grew = [p for p in ("pacing_lateness", "sender_stack", "receiver_wakeup")
        if p99("quiet", p) is not None and p99("hog", p) is not None and p99("hog", p) > 2 * p99("quiet", p)]
# "flat": the hog's p99 within 2x the quiet one, or 50 us above it, whichever is larger
flat = [p for p in ("forward", "back")
        if p99("quiet", p) is not None and p99("hog", p) is not None
        and p99("hog", p) <= max(2 * p99("quiet", p), p99("quiet", p) + 50_000)]
print(f"sender parts whose p99 more than doubled under the hog: {', '.join(grew) or 'none'}")
print(f"network parts whose p99 stayed flat: {', '.join(flat) or 'none'}")
ok = ("pacing_lateness" in grew or "sender_stack" in grew) and len(flat) == 2
print("verdict: " + ("the hog shows in the sender's parts, not in the network's" if ok else "NOT as expected"))
sys.exit(0 if ok else 1)
EOF
