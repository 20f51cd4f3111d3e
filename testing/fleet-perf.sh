#!/usr/bin/env bash
# Measures the agent (./twping --agent) with 1, 10 and 100 targets at 10 packets/s each against our twampd in
# its own process on loopback: CPU (% of one core, steady state) and RSS of the agent and of twampd, and the
# agent's own loss figures from its /metrics. Prints one table row per target count with min/median/max over
# the rounds, and the load average. Usage: testing/fleet-perf.sh [ROUNDS] [SECONDS] [COUNTS...]
#   ROUNDS   rounds per target count (default 3)
#   SECONDS  steady-state window per round (default 40; sessions are 10 s, a warm-up of 15 s comes first)
#   COUNTS   target counts (default "1 10 100")
# FLEET_PROTOCOL=stamp|light measures STAMP or TWAMP-Light targets against twampd --stamp/--light instead
# (default twamp). FLEET_INTERVAL=SECONDS adds --json-stream (to a file) with --interval SECONDS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
window=${2:-40}
shift $(( $# > 2 ? 2 : $# )) || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 10 100)
warmup=15
proto=${FLEET_PROTOCOL:-twamp}
case "$proto" in twamp|stamp|light) ;; *) echo "FLEET_PROTOCOL: twamp, stamp or light" >&2; exit 1 ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/fleet-perf.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

[ -f "$root/core/target/twping.jar" ] || TWPING_REBUILD=1 "$root/twping" -h >/dev/null 2>&1 || true

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
threads() { awk '/^Threads:/ {print $2}' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)

results="$work/results.tsv"
: >"$results"
for n in "${counts[@]}"; do
    for r in $(seq 1 "$rounds"); do
        port=$(free_port)
        mkdir -p "$work/twampd-$n-$r"
        if [ "$proto" = twamp ]; then
            printf 'maxcontrolsessions 0\nauthmode O\n' >"$work/twampd-$n-$r/twamp-server.conf"
            "$root/twampd" -Z -f -c "$work/twampd-$n-$r" -R "$work/twampd-$n-$r" -S "127.0.0.1:$port" \
                2>"$work/twampd-$n-$r.log" &
            tpid=$!
            pids+=("$tpid")
            for _ in $(seq 1 100); do
                (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
                sleep 0.1
            done
        else
            ready="$work/twampd-$n-$r/ready"
            TWAMPD_READY_FILE="$ready" "$root/twampd" "--$proto" "127.0.0.1:$port" 2>"$work/twampd-$n-$r.log" &
            tpid=$!
            pids+=("$tpid")
            for _ in $(seq 1 100); do
                [ -s "$ready" ] && break
                sleep 0.1
            done
        fi
        cfg="$work/agent-$n-$r.yaml"
        {
            echo "defaults: {rate: 10, session: 10, loss_timeout: 2}"
            echo "targets:"
            for i in $(seq 1 "$n"); do echo "  - {name: t$i, protocol: $proto, host: \"127.0.0.1:$port\"}"; done
        } >"$cfg"
        mport=$(free_port)
        stream=()
        [ -z "${FLEET_INTERVAL:-}" ] || stream=(--json-stream "$work/stream-$n-$r.ndjson" --interval "$FLEET_INTERVAL")
        "$root/twping" --agent "$cfg" --metrics-listen "127.0.0.1:$mport" "${stream[@]}" 2>"$work/agent-$n-$r.log" &
        apid=$!
        pids+=("$apid")
        sleep "$warmup"
        a0=$(cpu_ticks "$apid"); t0=$(cpu_ticks "$tpid"); s0=$(date +%s.%N)
        sleep "$window"
        a1=$(cpu_ticks "$apid"); t1=$(cpu_ticks "$tpid"); s1=$(date +%s.%N)
        arss=$(rss_kib "$apid"); trss=$(rss_kib "$tpid"); athreads=$(threads "$apid")
        metrics=$(curl -s "http://127.0.0.1:$mport/metrics" || python3 -c "import urllib.request;print(urllib.request.urlopen('http://127.0.0.1:$mport/metrics').read().decode())")
        sent=$(printf '%s\n' "$metrics" | awk '/^twping_agent_packets_sent_total/ {s += $2} END {print s + 0}')
        lost=$(printf '%s\n' "$metrics" | awk '/^twping_agent_packets_lost_total/ {s += $2} END {print s + 0}')
        skipped=$(printf '%s\n' "$metrics" | awk '/^twping_agent_packets_skipped_total/ {s += $2} END {print s + 0}')
        failures=$(printf '%s\n' "$metrics" | awk '/^twping_agent_session_failures_total/ {s += $2} END {print s + 0}')
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        kill -TERM "$apid"; wait "$apid" 2>/dev/null || true
        kill -TERM "$tpid"; wait "$tpid" 2>/dev/null || true
        if [ -n "${FLEET_INTERVAL:-}" ]; then
            echo "json-stream: $(grep -c '"event":"interval"' "$work/stream-$n-$r.ndjson" || true) interval lines," \
                "$(grep -c '"event":"end"' "$work/stream-$n-$r.ndjson" || true) end lines" >&2
        fi
        pids=()
        python3 - "$n" "$r" "$a0" "$a1" "$t0" "$t1" "$s0" "$s1" "$hz" "$arss" "$trss" "$sent" "$lost" "$skipped" \
            "$failures" "$athreads" "$load" >>"$results" <<'PY'
import sys
n, r, a0, a1, t0, t1, s0, s1, hz, arss, trss, sent, lost, skipped, failures, threads, load = sys.argv[1:]
secs = float(s1) - float(s0)
acpu = 100.0 * (int(a1) - int(a0)) / int(hz) / secs
tcpu = 100.0 * (int(t1) - int(t0)) / int(hz) / secs
print("\t".join([n, r, f"{acpu:.1f}", f"{int(arss) / 1024:.0f}", f"{tcpu:.1f}", f"{int(trss) / 1024:.0f}",
                 sent, lost, skipped, failures, threads, load]))
PY
        tail -n 1 "$results" >&2
    done
done

python3 - "$results" "$rounds" "$window" "$proto" <<'PY'
import statistics, sys
path, rounds, window, protocol = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = [l.rstrip("\n").split("\t") for l in open(path) if l.strip()]
by = {}
for row in rows:
    by.setdefault(int(row[0]), []).append(row)
def mmm(values, fmt="{:.1f}"):
    v = sorted(values)
    return "/".join(fmt.format(x) for x in (v[0], statistics.median(v), v[-1]))
import os
interval = os.environ.get("FLEET_INTERVAL")
print(f"protocol: {protocol}; " + (f"--json-stream with --interval {interval}; " if interval else "") + f"rounds: {rounds}, steady window {window} s each; figures min/median/max over the rounds")
print("| targets | agent CPU % of a core | agent RSS MiB | agent threads | twampd CPU % | twampd RSS MiB | sent | lost | skipped | failures | load average (1/5/15 min) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for n in sorted(by):
    rs = by[n]
    f = lambda i: [float(x[i]) for x in rs]
    loads = "; ".join(x[11] for x in rs)
    print(f"| {n} | {mmm(f(2))} | {mmm(f(3), '{:.0f}')} | {mmm(f(10), '{:.0f}')} | {mmm(f(4))} | {mmm(f(5), '{:.0f}')} | "
          f"{mmm(f(6), '{:.0f}')} | {mmm(f(7), '{:.0f}')} | {mmm(f(8), '{:.0f}')} | {mmm(f(9), '{:.0f}')} | {loads} |")
PY
