#!/usr/bin/env bash
# What the JIT compiles in ./twampd --stamp during its first session (docs/STAMP.md, "Warm-up"): starts the
# reflector with -XX:+PrintCompilation, waits for its ready file, runs one ./twping --stamp session (default
# 200,000 packets at 50,000/s), then prints the compilations of the reflector's methods (StampReflector) with the
# JVM's ms timestamps, the line count at ready, the session's SENT/LOST and the reflector's -v lines.
#
#   testing/stamp/warmup-jit.sh [--count N] [--interval SECONDS]
#
# Needs core/target/twping.jar. Exit 0, 1 when a program failed, 2 on bad arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
count=200000
interval=0.00002
while [ $# -gt 0 ]; do
    case $1 in
        --count) count=$2; shift 2 ;;
        --interval) interval=$2; shift 2 ;;
        *) echo "warmup-jit.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case $count in ''|*[!0-9]*) echo "warmup-jit.sh: --count takes an integer" >&2; exit 2 ;; esac
[ -f "$root/core/target/twping.jar" ] || { echo "warmup-jit.sh: build core/target/twping.jar first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/warmup-jit.XXXXXX")
pid=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
TWPING_JAVA_OPTS="-XX:+PrintCompilation" TWAMPD_READY_FILE="$work/ready" "$root/twampd" --stamp 127.0.0.1:0 -v \
    >"$work/jit" 2>"$work/err" &
pid=$!
for _ in $(seq 1 150); do
    [ -s "$work/ready" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
    sleep 0.2
done
[ -s "$work/ready" ] || { echo "warmup-jit.sh: twampd did not start" >&2; exit 1; }
echo "ready: $(wc -l <"$work/jit") compilations, load $(cut -d' ' -f1-3 /proc/loadavg)"
before=$(wc -l <"$work/jit")
status=0
"$root/twping" --stamp "127.0.0.1:$(cat "$work/ready")" -c "$count" -i "${interval}f" -L 2 -M >"$work/out" \
    2>"$work/twping.err" || status=1
after=$(wc -l <"$work/jit")
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=""
echo "during the session: lines $((before + 1))..$after"
sed -n "$((before + 1)),${after}p" "$work/jit" | grep -E 'twping\.stamp\.StampReflector' || echo "(no StampReflector compilation during the session)"
echo "all StampReflector::handle compilations:"
grep -E 'StampReflector::handle ' "$work/jit" || true
grep -E '^(SENT|LOST)' "$work/out" || true
grep -E 'warm-up|reflected' "$work/err" || true
exit $status
