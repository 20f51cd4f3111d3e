#!/usr/bin/env bash
# What many test sessions cost twampd (docs/SERVER.md, "Sessions, threads and memory"): starts ./twampd in
# the foreground on loopback, then runs testing/lib/session_load.py ROUNDS times against it: CONNECTIONS
# open-mode control connections x SESSIONS Request-TW-Session each, held (accepted, not started), then,
# with --start, started, then all connections closed at once. Prints each round and min/median/max of
# every figure, with the load average before and after. The server is stopped at the end.
#
#   testing/session-load.sh [--start] [--trim] [ROUNDS [CONNECTIONS [SESSIONS [MAXSESSIONS]]]]
#
# --trim (needs gdb): after each round the server calls glibc's malloc_trim(0) through gdb, to show what the
# allocator kept of the freed session memory.
#
# Defaults: 3 rounds, 20 connections x 256 sessions, maxsessions 1024 (the server default).
# Environment: TWAMPD_PORT (default 18620); the rest is inherited by twampd, e.g. MALLOC_MMAP_THRESHOLD_=65536
# (docs/SERVER.md, sessions, threads and memory). Needs python3. No test packet is sent.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
flags=()
while [ "${1:-}" = "--start" ] || [ "${1:-}" = "--trim" ]; do flags+=("$1"); shift; done
rounds=${1:-3} conns=${2:-20} sessions=${3:-256} maxsessions=${4:-1024}
port=${TWAMPD_PORT:-18620}

work=$(mktemp -d "${TMPDIR:-/tmp}/session-load.XXXXXX")
pid=""
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/twamp-server.conf" <<EOF
srcnode 127.0.0.1:$port
authmode O
rootfolly
testports 0
maxsessions $maxsessions
vardir $work
EOF

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
TWPING_AOT=0 "$root/twampd" -Z -c "$work" >"$work/twampd.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do      # up to 120 s: the first run builds the jar
    if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port),1).close()" 2>/dev/null; then
        break
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$work/twampd.log" >&2; exit 1; }
    sleep 0.2
done
echo "twampd pid $pid: $(tr '\0' ' ' </proc/$pid/cmdline | cut -c1-160)..."
echo "rounds $rounds, $conns connections x $sessions sessions, maxsessions $maxsessions ${flags[*]:-(held, not started)}"

results="$work/results"
: >"$results"
for r in $(seq 1 "$rounds"); do
    line=$(python3 "$root/testing/lib/session_load.py" "$pid" 127.0.0.1 "$port" "$conns" "$sessions" ${flags[@]+"${flags[@]}"})
    echo "round $r: $line"
    echo "$line" >>"$results"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'EOF'
import statistics, sys
rows = [dict(kv.split("=") for kv in line.split()) for line in open(sys.argv[1]) if line.strip()]
for key in rows[0]:
    v = sorted(int(r[key]) for r in rows)
    print("%-16s min %-8d median %-8d max %d" % (key, v[0], int(statistics.median(v)), v[-1]))
EOF
