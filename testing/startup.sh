#!/usr/bin/env bash
# Start-up cost of the launchers as a user meets it: `./twping -h` and `./twping -c 1` against a twampd.
#
#   testing/startup.sh [--runs N] [--twampd-port PORT]
#
# Runs `./twping -h` N times (default 10) and `./twping -c 1 -L 1 127.0.0.1:PORT` N times against our twampd
# (started here in the foreground on 127.0.0.1, open mode, stopped at the end); when TWPING_C is set, the C
# client's `-h` and `-c 1` are timed the same way, alternating with ours, against the same server (and, when
# TWAMPD_C is set too, against the C twampd as well). Prints a Markdown table: wall time min / median / max
# per command, the load average before and after. Exit 0, 1 when a run failed, 2 on bad arguments.
# The wall time is measured with `date +%s%N` around each run (median of an even count: the upper middle).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=10
port=18760
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=${2:?--runs needs a value}; shift 2 ;;
        --twampd-port) port=${2:?--twampd-port needs a value}; shift 2 ;;
        *) echo "usage: testing/startup.sh [--runs N] [--twampd-port PORT]" >&2; exit 2 ;;
    esac
done
case $runs in ''|*[!0-9]*|0) echo "startup.sh: --runs: a positive integer expected" >&2; exit 2 ;; esac
case $port in ''|*[!0-9]*) echo "startup.sh: --twampd-port: a port number expected" >&2; exit 2 ;; esac

. "$root/testing/lib/local-twampd.sh"
local_twampd startup "$port"
# one session first, so that the server is not measured compiling its first session
"$root/twping" -c 100 -i 0.001f -L 1 "127.0.0.1:$port" >/dev/null 2>&1 || true

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
failed=0
declare -A times
time_run() { # label command...
    local label=$1 t0 t1
    shift
    t0=$(date +%s%N)
    if ! "$@" >"$work/out" 2>&1; then
        echo "startup.sh: $label failed:" >&2
        tail -n 3 "$work/out" >&2
        failed=1
    fi
    t1=$(date +%s%N)
    times[$label]+="$(( (t1 - t0) / 1000000 )) "
}
for _ in $(seq "$runs"); do
    time_run "ours -h" "$root/twping" -h
    time_run "ours -c 1" "$root/twping" -c 1 -L 1 "127.0.0.1:$port"
    if [ -n "${TWPING_C:-}" ]; then
        time_run "C -h" "$TWPING_C" -h
        time_run "C -c 1" "$TWPING_C" -c 1 -L 1 "127.0.0.1:$port"
    fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $runs runs each, $(nproc) CPUs, load average $load_before before, $load_after after."
[ -n "${TWPING_C:-}" ] || echo "C twping: skipped, TWPING_C is not set"
echo
echo "| command | min | median | max |"
echo "|---|---|---|---|"
for label in "ours -h" "C -h" "ours -c 1" "C -c 1"; do
    [ -n "${times[$label]:-}" ] || continue
    read -r -a sorted <<<"$(tr ' ' '\n' <<<"${times[$label]}" | sed '/^$/d' | sort -n | tr '\n' ' ')"
    n=${#sorted[@]}
    printf '| `%s` | %d.%03d s | %d.%03d s | %d.%03d s |\n' "$label" \
        $((sorted[0] / 1000)) $((sorted[0] % 1000)) \
        $((sorted[n / 2] / 1000)) $((sorted[n / 2] % 1000)) \
        $((sorted[n - 1] / 1000)) $((sorted[n - 1] % 1000))
done
exit "$failed"
