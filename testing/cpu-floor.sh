#!/usr/bin/env bash
# The JVM's floor for the client's per-packet CPU (issue 23; docs/notes/2026-12-05-cpu-floor.md): the least a TWAMP
# sender and receiver do, through this project's ffm-sockets UdpSocket, kernel RX/TX timestamps and the launcher's
# JVM flags for such runs (C1 only, Serial GC), with nothing of twping around it (testing/src/.../perf/CpuFloor.java).
#
#   testing/cpu-floor.sh [--rounds N] [--aot]
#
# Scenarios as testing/footprint.sh's: s2000 (2000 packets at 500/s, periodic) and s5000 (5000 at 1000/s,
# exponential), 41-byte packets, loss timeout 1 s, against a UDP echo on 127.0.0.1 (a separate python3 process, not
# measured). Shapes, rounds alternating: `one` (one thread sends, then waits in the receive call for the reply or the
# next send time, as C's twping) and `two` (a sender thread parking until each send time and a receiver thread, as
# ours). --aot: a JDK 25 AOT cache trained on one s2000 run of each shape (as the launcher's cache; default: none).
# Prints Markdown on stdout: per run, the whole JVM's CPU (user + system, from wait4) and max RSS, the CPU of the
# session alone (process CPU from its first send to its end) and of the engine threads, JIT and main at exit.
# Needs a JDK (javac, jar) beside the launcher's java and `./mvnw package` having built ffm-sockets and testing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3 aot=0
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --aot) aot=1; shift ;;
        -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "cpu-floor.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $rounds in '' | *[!0-9]* | 0) echo "cpu-floor.sh: --rounds wants a positive integer" >&2; exit 2 ;; esac
java_bin=$("$root/twping" --print-java) || exit 1
jar_bin="$(dirname "$java_bin")/jar"
ffm_jar=$(ls "$root"/ffm-sockets/target/twping-ffm-sockets-*.jar 2>/dev/null | grep -v -- '-tests\|-sources' | head -1 || true)
classes="$root/testing/target/classes/io/github/twping/testing/perf"
if [ -z "$ffm_jar" ] || [ ! -f "$classes/CpuFloor.class" ]; then
    echo "cpu-floor.sh: build first: ./mvnw -B -ntp -q -DskipTests package" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cpu-floor.XXXXXX")
echo_pid=""
cleanup() {
    [ -n "$echo_pid" ] && kill "$echo_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/classes/io/github/twping/testing/perf"
cp "$classes"/CpuFloor*.class "$work/classes/io/github/twping/testing/perf/"
"$jar_bin" cf "$work/floor.jar" -C "$work/classes" .      # an AOT cache takes jars only

# The echo: answers every datagram with its own bytes, in another process (its CPU is not the JVM's).
python3 -u -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
while True:
    data, peer = s.recvfrom(2048)
    s.sendto(data, peer)
' >"$work/echo.port" &
echo_pid=$!
for _ in $(seq 1 50); do
    [ -s "$work/echo.port" ] && break
    sleep 0.1   # waiting for the echo to print its port, bounded (5 s)
done
port=$(head -1 "$work/echo.port")
[ -n "$port" ] || { echo "cpu-floor.sh: the echo did not start" >&2; exit 1; }

# The launcher's flags for a C1 run (./twping, jvm_opts and the c1 profile).
opts=(--enable-native-access=ALL-UNNAMED
    -XX:CompileCommand=quiet -XX:CompileCommand=inline,jdk.internal.foreign.AbstractMemorySegmentImpl::asSlice
    -XX:+UseSerialGC -Xms128m -Xmn96m -Xmx512m -Xss1m -XX:-UsePerfData
    -XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining -cp "$work/floor.jar:$ffm_jar")
main=io.github.twping.testing.perf.CpuFloor
if [ "$aot" = 1 ]; then
    "$java_bin" "${opts[@]}" -XX:AOTCacheOutput="$work/floor.aot" -Xlog:aot=off -Xlog:cds=off \
        "$main" two "127.0.0.1:$port" 2000 2000 >/dev/null 2>&1
    opts+=(-XX:AOTCache="$work/floor.aot" -Xlog:aot=off -Xlog:cds=off)
fi

echo "## CPU floor"
echo
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, $rounds rounds, AOT cache: $([ "$aot" = 1 ] && echo yes || echo no), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
echo
echo "| scenario | shape | JVM CPU s | max RSS MB | session CPU ms | sender ms | receiver ms | JIT C1 ms | main ms | other ms | replies | load |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
for round in $(seq 1 "$rounds"); do
    for scenario in s2000 s5000; do
        case $scenario in
            s2000) args=(2000 2000) ;;
            s5000) args=(5000 1000 exp) ;;
        esac
        for shape in one two; do
            out=$( { /usr/bin/time -f 'time %U %S %M' "$java_bin" "${opts[@]}" "$main" "$shape" "127.0.0.1:$port" \
                "${args[@]}"; } 2>&1 )
            line=$(grep '^shape=' <<<"$out" || true)
            read -r _ user sys rss < <(grep '^time ' <<<"$out")
            [ -n "$line" ] || { echo "cpu-floor.sh: run failed: $out" >&2; exit 1; }
            receiver=$(field "$line" receiver_ms)
            [ "$shape" = one ] && receiver="(sender)"
            o=$(field "$line" threads_other_ms) g=$(field "$line" threads_vm_gc_ms)
            other=$(( ${o:-0} + ${g:-0} ))
            printf '| %s | %s | %.2f | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$scenario" "$shape" \
                "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" \
                "$(field "$line" session_cpu_ms)" "$(field "$line" sender_ms)" "$receiver" \
                "$(field "$line" threads_jit_c1_ms)" "$(field "$line" threads_main_ms)" "$other" \
                "$(field "$line" replies)/$(field "$line" packets)" "$(cut -d' ' -f1 /proc/loadavg)"
        done
    done
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Session CPU: the process's CPU from the first send"
echo "to the end (all threads); sender/receiver: the engine threads' own clocks (shape one: one thread does both)."
