#!/usr/bin/env bash
# The memory of a running agent: `./twping --agent FILE --json-stream FILE --interval 1` with N targets against
# our own reflectors on loopback, for a bounded time, then where its memory is.
#
#   testing/agent-footprint.sh [--targets N] [--seconds S] [--protocol twamp|stamp|mix] [--rate PPS] [--no-nmt]
#
#   --targets N     targets in the generated YAML (default 100)
#   --seconds S     how long the agent runs (default 40; sessions are 10 s, so this spans several of them)
#   --protocol P    twamp: every target against `./twampd -Z` (open mode); stamp: against `./twampd --stamp`;
#                   mix: half each (default twamp, the form of docs/FLEET.md's figure)
#   --rate PPS      packets per second per target (default 10)
#   --no-nmt        run without -XX:NativeMemoryTracking=summary (NMT adds a little memory of its own)
#
# Prints: the agent's maximum RSS (the kernel's VmHWM) and RSS at the end, the most threads seen (sampled every
# 0.5 s), /proc/PID/smaps_rollup (anonymous and file-backed parts), the NMT summary by category (committed MB) from
# `jcmd PID VM.native_memory summary` near the end, the packets sent and lost from its /metrics, the lines of the
# JSON stream, and the load average. TWPING_JAVA_OPTS passes through to the agent (and the reflectors).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
targets=100 seconds=40 proto=twamp rate=10 nmt=1
while [ $# -gt 0 ]; do
    case $1 in
        --targets) targets=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --protocol) proto=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --no-nmt) nmt=0; shift ;;
        -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "agent-footprint.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $targets in '' | *[!0-9]* | 0) echo "agent-footprint.sh: --targets wants a positive integer" >&2; exit 2 ;; esac
case $seconds in '' | *[!0-9]* | 0) echo "agent-footprint.sh: --seconds wants a positive integer" >&2; exit 2 ;; esac
case $proto in twamp | stamp | mix) ;; *) echo "agent-footprint.sh: --protocol: twamp, stamp or mix" >&2; exit 2 ;; esac
[ "$seconds" -le 3600 ] || { echo "agent-footprint.sh: --seconds: at most 3600" >&2; exit 2; }
command -v python3 >/dev/null || { echo "agent-footprint.sh: python3 not found" >&2; exit 1; }
java_bin=$("$root/twping" --print-java) || exit 1
jcmd_bin="$(dirname "$java_bin")/jcmd"
[ -f "$root/core/target/twping.jar" ] || "$root/twping" -h >/dev/null 2>&1 || true   # builds the jar once

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-footprint.XXXXXX")
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
status_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

twamp_port="" stamp_port=""
if [ "$proto" != stamp ]; then
    twamp_port=$(free_port)
    mkdir -p "$work/twampd"
    printf 'maxcontrolsessions 0\nauthmode O\n' >"$work/twampd/twamp-server.conf"
    "$root/twampd" -Z -f -c "$work/twampd" -R "$work/twampd" -S "127.0.0.1:$twamp_port" 2>"$work/twampd.log" &
    pids+=($!)
    for _ in $(seq 1 150); do
        (exec 3<>"/dev/tcp/127.0.0.1/$twamp_port") 2>/dev/null && break
        sleep 0.2   # polling a port that is not open yet, bounded (30 s)
    done
fi
if [ "$proto" != twamp ]; then
    stamp_port=$(free_port)
    TWAMPD_READY_FILE="$work/stamp.ready" "$root/twampd" --stamp "127.0.0.1:$stamp_port" 2>"$work/stamp.log" &
    pids+=($!)
    for _ in $(seq 1 150); do
        [ -s "$work/stamp.ready" ] && break
        sleep 0.2   # bounded (30 s)
    done
fi

cfg="$work/agent.yaml"
{
    echo "defaults: {rate: $rate, session: 10, loss_timeout: 2}"
    echo "targets:"
    for i in $(seq 1 "$targets"); do
        p=$proto
        [ "$p" = mix ] && { [ $((i % 2)) = 0 ] && p=stamp || p=twamp; }
        if [ "$p" = twamp ]; then port=$twamp_port; else port=$stamp_port; fi
        echo "  - {name: t$i, protocol: $p, host: \"127.0.0.1:$port\"}"
    done
} >"$cfg"
mport=$(free_port)
opts=${TWPING_JAVA_OPTS:-}
[ "$nmt" = 0 ] || opts="$opts -XX:NativeMemoryTracking=summary"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ) load_start=$(load)
TWPING_JAVA_OPTS="$opts" "$root/twping" --agent "$cfg" --metrics-listen "127.0.0.1:$mport" \
    --json-stream "$work/stream.ndjson" --interval 1 2>"$work/agent.log" &
apid=$!
pids+=("$apid")
max_threads=0 max_rss=0
end=$((SECONDS + seconds))
while [ $SECONDS -lt $end ] && kill -0 "$apid" 2>/dev/null; do
    t=$(status_kib "$apid" Threads); r=$(status_kib "$apid" VmRSS)
    [ "${t:-0}" -le "$max_threads" ] || max_threads=$t
    [ "${r:-0}" -le "$max_rss" ] || max_rss=$r
    sleep 0.5
done
kill -0 "$apid" 2>/dev/null || { echo "agent-footprint.sh: the agent exited early:" >&2; cat "$work/agent.log" >&2; exit 1; }
hwm=$(status_kib "$apid" VmHWM) rss=$(status_kib "$apid" VmRSS)
cpu_s=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$apid/stat")
rollup=$(cat "/proc/$apid/smaps_rollup" 2>/dev/null || true)
nmt_out=""
[ "$nmt" = 0 ] || nmt_out=$("$jcmd_bin" "$apid" VM.native_memory summary scale=KB 2>/dev/null || true)
metrics=$(python3 -c "import urllib.request;print(urllib.request.urlopen('http://127.0.0.1:$mport/metrics', timeout=5).read().decode())" 2>/dev/null || true)
load_end=$(load)
kill -TERM "$apid"; wait "$apid" 2>/dev/null || true

sum() { printf '%s\n' "$metrics" | awk -v m="$1" '$1 ~ "^"m {s += $2} END {print s + 0}'; }
echo "## Agent footprint"
echo
echo "$started, $targets targets ($proto, $rate packets/s each, 10 s sessions), --json-stream with --interval 1," \
    "$seconds s, $(nproc) CPUs, load average $load_start at the start, $load_end at the end" \
    "$([ "$nmt" = 1 ] && echo '(with NMT)')${TWPING_JAVA_OPTS:+; TWPING_JAVA_OPTS=\`$TWPING_JAVA_OPTS\`}"
echo
printf -- '- max RSS (VmHWM): %.1f MiB; RSS at the end: %.1f MiB; most threads seen: %s; CPU %s s in %s s\n' \
    "$(echo "$hwm / 1024" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$max_threads" "$cpu_s" "$seconds"
printf -- '- packets sent %s, lost %s, session failures %s; JSON stream: %s interval lines, %s end lines\n' \
    "$(sum twping_agent_packets_sent_total)" "$(sum twping_agent_packets_lost_total)" \
    "$(sum twping_agent_session_failures_total)" \
    "$(grep -c '"event":"interval"' "$work/stream.ndjson" || true)" "$(grep -c '"event":"end"' "$work/stream.ndjson" || true)"
printf '%s\n' "$rollup" | awk '/^(Rss|Anonymous|Pss_File|Pss_Anon):/ {printf "%s %.1f MiB; ", $1, $2 / 1024} END {print ""}' |
    sed 's/^/- smaps_rollup: /'
if [ -n "$nmt_out" ]; then
    echo
    echo "NMT committed, MiB (\`jcmd PID VM.native_memory summary\` before the end):"
    echo
    printf '%s\n' "$nmt_out" | python3 -c '
import re, sys
text = sys.stdin.read()
rows = []
for m in re.finditer(r"^-\s+([A-Za-z ]+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", text, re.M):
    rows.append((m.group(1).strip(), int(m.group(3))))
t = re.search(r"Total: reserved=\d+KB, committed=(\d+)KB", text)
print("| category | committed MiB |")
print("|---|---|")
if t:
    print(f"| total | {int(t.group(1)) / 1024:.1f} |")
rows.sort(key=lambda r: -r[1])
for name, kb in rows:
    if kb >= 256:
        extra = ""
        if name == "Thread":
            th = re.search(r"\(threads #(\d+)\)", text)
            extra = f" ({th.group(1)} threads)" if th else ""
        print(f"| {name}{extra} | {kb / 1024:.1f} |")
'
fi
