#!/usr/bin/env bash
# Compares the agent's delays of two builds against one twampd that stamps in user space, as C twampd does
# (docs/PERFORMANCE.md, "Fleet agent": "One socket or two"). Each build's agent runs one TWAMP target at 500
# packets/s in 4 s sessions for SECONDS, the builds alternate for ROUNDS rounds, every process under nice -15;
# prints per build the median (min-max) over the sessions of the forward-leg and round-trip p50/p99 from the
# end lines of --json-stream. Loopback only; each agent is stopped with SIGTERM and waited for.
#
# usage: testing/agent-sockets-ab.sh --before ROOT --after ROOT [--rounds N] [--seconds S]
#   ROOT: a source tree with the jars built (./mvnw -pl core -am package -DskipTests), e.g. a git worktree
set -euo pipefail
before= after= rounds=2 seconds=26
while [ $# -gt 0 ]; do
    case "$1" in
        --before) before=$2; shift 2 ;;
        --after) after=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) echo "agent-sockets-ab: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$before" ] && [ -n "$after" ] || { echo "usage: $0 --before ROOT --after ROOT [--rounds N] [--seconds S]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/conf"
printf 'srcnode 127.0.0.1:%s\nauthmode O\n' "$port" > "$work/conf/twamp-server.conf"
printf 'targets:\n  - name: t\n    host: 127.0.0.1:%s\n    rate: 500\n    session: 4\n' "$port" > "$work/agent.yaml"
nice -n -15 "$here/twampd" -Z -f -c "$work/conf" -R "$work/conf" --rx-stamp user > "$work/twampd.log" 2>&1 &
twampd=$!
trap 'kill -TERM $twampd 2>/dev/null; wait $twampd 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 50); do python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null && break; sleep 0.1; done
echo "$(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), twampd --rx-stamp user on 127.0.0.1:$port"
for r in $(seq 1 "$rounds"); do
    for v in before after; do
        root=$before; [ "$v" = after ] && root=$after
        (cd "$root" && exec nice -n -15 ./twping --agent "$work/agent.yaml" --json-stream "$work/$v.$r.ndjson" --interval 0) \
            > "$work/$v.$r.log" 2>&1 &
        p=$!
        sleep "$seconds"
        kill -TERM "$p"; wait "$p" || true
    done
done
python3 - "$work" <<'PY'
import glob, json, statistics, sys
work = sys.argv[1]
for v in ("before", "after"):
    rows = []
    for f in sorted(glob.glob(f"{work}/{v}.*.ndjson")):
        for line in open(f):
            d = json.loads(line)
            if d["event"] == "end":
                dl = d["exact"]["delays"]
                rows.append((dl["forward"]["p50_ns"], dl["forward"]["p99_ns"], dl["round_trip"]["p50_ns"],
                             dl["round_trip"]["p99_ns"], d["exact"]["packets"]["lost"]))
    if not rows:
        print(f"{v}: no session ended"); continue
    cells = []
    for i, name in enumerate(("forward p50", "forward p99", "RTT p50", "RTT p99")):
        xs = [r[i] / 1000 for r in rows]
        cells.append(f"{name} {statistics.median(xs):.1f} ({min(xs):.1f}-{max(xs):.1f}) us")
    print(f"{v}: {len(rows)} sessions, lost {sum(r[4] for r in rows)}; " + "; ".join(cells))
PY
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
