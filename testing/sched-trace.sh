#!/usr/bin/env bash
# Who keeps the C twampd off its CPU after our send: the forward leg's outliers against the C reflector, explained
# from the kernel's scheduler events (docs/PERFORMANCE.md, "Tails").
#
#   testing/sched-trace.sh [--rounds N] [--count N] [--schedule SPEC] [--threshold US] [--lateness]
#                          [--variant LABEL=JAVA_OPTS]...
#
# Starts TWAMPD_C (the C twampd, open mode) on 127.0.0.1, then per round and variant one `twping -c COUNT -i
# SCHEDULE -L 1 -R` session (default 2000 at 0.002f, 3 rounds) with sched_switch and sched_waking traced (tracefs,
# clock tai; needs root). For the packets whose forward delay exceeds the threshold (default 300 µs) it sums what
# ran on the reflector's CPU between its wake-up and its run (testing/lib/sched_blame.py): our JIT's compiler
# threads, our other threads, other processes. Variants pass TWPING_JAVA_OPTS (e.g. off=-Dtwping.jit.sliceNs=0);
# without one, a single variant `ours`. --lateness (fixed schedules, e.g. 0.002f): the send lateness's outliers
# instead, and what ran on our sender's CPU from 100 µs before each one's scheduled time to its send; "woken late"
# counts those whose sender was still asleep at its scheduled time (the timer's or the host's delay, not a task's). A table on stdout; the trace settings are restored at exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3 count=2000 schedule=0.002f threshold=300 leg=forward
labels=() opts=()
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --schedule) schedule=$2; shift 2 ;;
        --threshold) threshold=$2; shift 2 ;;
        --lateness) leg=lateness; shift ;;
        --variant) labels+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
        -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "sched-trace.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for n in "$rounds" "$count" "$threshold"; do
    case $n in '' | *[!0-9]* | 0) echo "sched-trace.sh: --rounds, --count and --threshold want positive integers" >&2; exit 2 ;; esac
done
[ ${#labels[@]} -gt 0 ] || { labels=(ours); opts=(""); }
interval=""
if [ "$leg" = lateness ]; then
    case $schedule in
        *[fF]) interval=${schedule%[fF]} ;;
        *) echo "sched-trace.sh: --lateness wants a fixed schedule (e.g. --schedule 0.002f), not '$schedule'" >&2; exit 2 ;;
    esac
    case $interval in '' | . | *[!0-9.]* | *.*.*) echo "sched-trace.sh: --schedule '$schedule' is not an interval in seconds" >&2; exit 2 ;; esac
fi
if [ -z "${TWAMPD_C:-}" ] || [ ! -x "${TWAMPD_C}" ]; then
    echo "sched-trace.sh: set TWAMPD_C to the C twampd (perfSONAR owamp); nothing measured" >&2
    exit 2
fi
T=/sys/kernel/tracing
if [ ! -w "$T/trace" ] || [ ! -d "$T/events/sched/sched_switch" ]; then
    echo "sched-trace.sh: $T is not writable or has no sched events (needs root and tracefs); nothing measured" >&2
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/sched-trace.XXXXXX")
server=""
clock_before=$(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock")
size_before=$(cat "$T/buffer_size_kb")
tgid_before=$(cat "$T/options/record-tgid")
events=(sched_switch sched_waking)
cleanup() {
    echo 0 >"$T/tracing_on"
    for e in "${events[@]}"; do echo 0 >"$T/events/sched/$e/enable"; done
    echo "$clock_before" >"$T/trace_clock"; echo "$tgid_before" >"$T/options/record-tgid"
    echo "$size_before" >"$T/buffer_size_kb"; echo >"$T/trace"; echo 1 >"$T/tracing_on"
    [ -n "$server" ] && kill "$server" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'srcnode 127.0.0.1:%s\nauthmode O\n' "$port" >"$work/twamp-server.conf"
"$TWAMPD_C" -Z -f -c "$work" -R "$work" >"$work/twampd.log" 2>&1 &
server=$!
for _ in $(seq 100); do   # bounded: 100 x 0.1 s
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$server" 2>/dev/null || { echo "sched-trace.sh: the C twampd did not start:" >&2; cat "$work/twampd.log" >&2; exit 1; }
    sleep 0.1
done
"$root/twping" -h >/dev/null 2>&1 || { echo "sched-trace.sh: ./twping -h failed (build?)" >&2; exit 1; }
echo 0 >"$T/tracing_on"; echo tai >"$T/trace_clock"; echo 1 >"$T/options/record-tgid"; echo 16000 >"$T/buffer_size_kb"
echo "# testing/sched-trace.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, against the C twampd, -c $count -i $schedule -L 1, outliers: $leg > $threshold µs"
echo
if [ "$leg" = lateness ]; then
    echo "| variant | round | load | lateness p50 | p99 | p99.9 | max | outliers | on the sender's CPU: our JIT µs | our other threads µs | twampd µs | other processes µs | woken late |"
else
    echo "| variant | round | load | forward p50 | p99 | p99.9 | max | outliers | on its CPU first: our JIT µs | our other threads µs | twampd µs | other processes µs | already running |"
fi
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in $(seq "$rounds"); do
    for i in "${!labels[@]}"; do
        d="$work/${labels[$i]}.$r"; mkdir -p "$d"
        load=$(cut -d' ' -f1 /proc/loadavg)
        echo >"$T/trace"
        for e in "${events[@]}"; do echo 1 >"$T/events/sched/$e/enable"; done
        echo 1 >"$T/tracing_on"
        TWPING_JAVA_OPTS="${opts[$i]}" "$root/twping" -c "$count" -i "$schedule" -L 1 -R "127.0.0.1:$port" >"$d/R" 2>"$d/err" &
        echo $! >"$d/pid"
        wait "$(cat "$d/pid")" || echo "sched-trace.sh: ${labels[$i]} round $r: twping failed: $(tail -1 "$d/err")" >&2
        echo 0 >"$T/tracing_on"
        for e in "${events[@]}"; do echo 0 >"$T/events/sched/$e/enable"; done
        cat "$T/trace" >"$d/trace"
        python3 "$root/testing/lib/sched_blame.py" "$d" "${labels[$i]}" "$r" "$threshold" $interval |
            awk -v load="$load" '{ printf "| %s | %s | %s |", $1, $2, load; for (i = 3; i <= NF; i++) printf " %s |", $i; print "" }'
        rm -f "$d/trace"
    done
done
