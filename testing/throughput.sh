#!/usr/bin/env bash
# Throughput on loopback: N rounds of one twping session at a fixed high rate against a reflector in its own
# process, with the loss and the CPU per packet of both sides.
#
#   testing/throughput.sh [--protocol twamp|stamp|both] [--rounds N] [--rate PPS] [--seconds S]
#                         [--twping-args 'ARGS'] [--twampd-args 'ARGS'] [--boost]
#
# Defaults: both protocols, 3 rounds, 100000 packets/s, 10 s (packets = rate x S), i.e. per round
#   ./twping [--stamp] -c 1000000 -i 0.00001f -L 1 -M HOST:PORT
# against ./twampd (TWAMP: its own process, open mode, 127.0.0.1) or ./twampd --stamp 127.0.0.1:0 (STAMP),
# one reflector process per protocol for all its rounds. Per round it prints: packets scheduled and sent, lost
# (LOST of -M plus the packets never sent, the sender having been more than L behind), the client's CPU
# (user + system from /usr/bin/time, the whole process: JVM start, warm-up and session) and max RSS, the
# reflector process's CPU over the round (utime + stime from /proc/PID/stat, 10 ms ticks) and both per packet.
# Before the rounds, one unrecorded priming session of 1 s at the rate (the reflector then has served a session,
# as a deployed one has); "client marginal µs/packet" is (round CPU - priming CPU) / (packets - priming packets),
# the client's cost per packet without its start-up and warm-up.
# --boost: run every process in a new session whose scheduler autogroup and nice value are -15 (needs root): on
# a machine shared with other work each session otherwise gets one autogroup's share of the CPUs, whatever its
# nice value. Markdown on stdout, progress on stderr. Exit 0 when every round lost 0, 1 when a round lost
# packets or failed, 2 on bad arguments. Needs core/target/twping.jar (./mvnw -pl core -am package -DskipTests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
protocols=twamp,stamp
rounds=3
rate=100000
seconds=10
twping_args=""
twampd_args=""
boost=0
while [ $# -gt 0 ]; do
    case $1 in
        --protocol) [ "$2" = both ] && protocols=twamp,stamp || protocols=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --twping-args) twping_args=$2; shift 2 ;;
        --twampd-args) twampd_args=$2; shift 2 ;;
        --boost) boost=1; shift ;;
        *) echo "throughput.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case $rounds$rate$seconds in *[!0-9]*|"") echo "throughput.sh: --rounds, --rate and --seconds take integers" >&2; exit 2 ;; esac
case ,$protocols, in *,twamp,*|*,stamp,*) ;; *) echo "throughput.sh: --protocol twamp, stamp or both" >&2; exit 2 ;; esac
[ "$rate" -gt 0 ] && [ "$rounds" -gt 0 ] && [ "$seconds" -gt 0 ] || { echo "throughput.sh: values must be > 0" >&2; exit 2; }
[ -f "$root/core/target/twping.jar" ] || { echo "throughput.sh: build core/target/twping.jar first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "throughput.sh: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
if [ "$boost" = 1 ] && [ "$(id -u)" != 0 ]; then
    echo "throughput.sh: --boost needs root (a negative autogroup nice value)" >&2
    exit 2
fi
count=$((rate * seconds))
interval=$(awk -v r="$rate" 'BEGIN { printf "%.9f", 1 / r }')
work=$(mktemp -d "${TMPDIR:-/tmp}/throughput.XXXXXX")
pid=""
# shellcheck disable=SC2317  # run by the EXIT trap
stop_reflector() {
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        pid=""
    fi
}
# shellcheck disable=SC2317
cleanup() {
    stop_reflector
    rm -rf "$work"
}
trap cleanup EXIT

# Runs "$@" in the foreground, boosted when asked (its own session, autogroup and nice -15).
run() {
    if [ "$boost" = 1 ]; then
        setsid -w bash -c 'echo -15 >/proc/self/autogroup && exec nice -n -15 "$@"' run "$@"
    else
        "$@"
    fi
}

# The kernel's UDP receive-buffer drops, all sockets of the host (/proc/net/snmp Udp: RcvbufErrors).
rcvbuf_errors() { awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $6 }' /proc/net/snmp; }

# The reflector process's CPU in clock ticks (utime + stime).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# Waits up to 30 s, while the reflector $pid lives, for the command "$@" to succeed (it sets $target); on failure
# prints what did not start ($1) and the head of its log.
await_reflector() {
    local what=$1
    shift
    for _ in $(seq 1 150); do
        "$@" && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    echo "throughput.sh: $what did not start:" >&2
    head -n 5 "$work/twampd.err" >&2
    return 1
}

# twampd's control port accepts a connection
twamp_listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && target=127.0.0.1:$1; }
# twampd --stamp wrote its port to the ready file
stamp_ready() { [ -s "$work/ready" ] && target=127.0.0.1:$(cat "$work/ready"); }

start_twamp() {
    local port
    port=$(awk 'BEGIN { srand(); print 20000 + int(rand() * 20000) }')
    printf 'srcnode 127.0.0.1:%s\nauthmode O\n' "$port" >"$work/twamp-server.conf"
    # shellcheck disable=SC2086
    run "$root/twampd" -Z -f -c "$work" -R "$work" $twampd_args >"$work/twampd.err" 2>&1 &
    pid=$!
    await_reflector twampd twamp_listening "$port"
}

start_stamp() {
    rm -f "$work/ready"
    # shellcheck disable=SC2086
    TWAMPD_READY_FILE="$work/ready" run "$root/twampd" --stamp 127.0.0.1:0 $twampd_args >"$work/twampd.err" 2>&1 &
    pid=$!
    await_reflector "twampd --stamp" stamp_ready
}

hz=$(getconf CLK_TCK)
status=0
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $rounds rounds of \`-c $count -i ${interval}f -L 1 -M\` ($rate/s for $seconds s),"\
     "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start$([ "$boost" = 1 ] && echo ', every process in an autogroup at nice -15')."
echo
echo "| protocol | round | scheduled | sent | lost | lost % | client CPU s | client µs/packet | client marginal µs/packet | client max RSS MB | reflector CPU s | reflector µs/packet | wall s | load before |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
IFS=, read -ra protocol_list <<<"$protocols"
for protocol in "${protocol_list[@]}"; do
    target=""
    if [ "$protocol" = stamp ]; then start_stamp || { status=1; continue; }; else start_twamp || { status=1; continue; }; fi
    # twping's operand: the host of a TWAMP session, the argument of --stamp
    if [ "$protocol" = stamp ]; then operand=(--stamp "$target"); else operand=("$target"); fi
    # the reflector's CPU is read from the java process the launcher execs into (setsid may have forked)
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != java ]; then
        pid=$(pgrep -n -P "$pid" java || pgrep -n -s "$(ps -o sid= -p "$pid" | tr -d ' ')" java || echo "$pid")
    fi
    echo "throughput.sh: $protocol reflector on $target (pid $pid, $(cat /proc/$pid/comm 2>/dev/null))" >&2
    # Priming: one unrecorded session of 1 s at the rate, so that the rounds meet a reflector that has run a session
    # (as a deployed one has); its client CPU is the base of the marginal cost per packet.
    prime_count=$rate
    echo "throughput.sh: $protocol priming session, $prime_count packets" >&2
    # shellcheck disable=SC2086
    run /usr/bin/time -o "$work/time" -f '%U %S %M %e' "$root/twping" -c "$prime_count" -i "${interval}f" -L 1 -M \
        $twping_args "${operand[@]}" >"$work/out" 2>"$work/err" || { tail -n 5 "$work/err" >&2; status=1; }
    read -r user sys _ _ <"$work/time"
    prime_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
    for round in $(seq 1 "$rounds"); do
        load=$(cut -d' ' -f1 /proc/loadavg)
        before=$(ticks "$pid")
        drops_before=$(rcvbuf_errors)
        echo "throughput.sh: $protocol round $round, $count packets at $rate/s" >&2
        # shellcheck disable=SC2086
        if ! run /usr/bin/time -o "$work/time" -f '%U %S %M %e' "$root/twping" -c "$count" -i "${interval}f" -L 1 -M \
                $twping_args "${operand[@]}" >"$work/out" 2>"$work/err"; then
            echo "throughput.sh: twping failed:" >&2
            tail -n 5 "$work/err" >&2
            status=1
            continue
        fi
        after=$(ticks "$pid")
        drops=$(( $(rcvbuf_errors) - drops_before ))
        grep -i 'drop' "$work/err" >&2 || true
        [ "$drops" = 0 ] || echo "throughput.sh: $protocol round $round: $drops datagrams dropped by full UDP receive buffers on this host" >&2
        read -r user sys rss wall <"$work/time"
        row=$(awk -F'\t' -v count="$count" -v user="$user" -v sys="$sys" -v rss="$rss" -v wall="$wall" \
                  -v rticks=$((after - before)) -v hz="$hz" -v proto="$protocol" -v round="$round" -v load="$load" \
                  -v prime_cpu="$prime_cpu" -v prime_count="$prime_count" '
            $1 == "SENT" { sent = $2 } $1 == "LOST" { lost = $2 }
            END {
                lost += count - sent; cpu = user + sys; rcpu = rticks / hz
                marginal = count > prime_count ? 1e6 * (cpu - prime_cpu) / (count - prime_count) : 0
                printf "| %s | %d | %d | %d | %d | %.3f | %.2f | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f | %s |\n", proto,
                       round, count, sent, lost, 100 * lost / count, cpu, 1e6 * cpu / count, marginal, rss / 1024, rcpu,
                       1e6 * rcpu / count, wall, load
                exit lost == 0 ? 0 : 3
            }' "$work/out") && lost_none=1 || lost_none=0
        echo "$row"
        [ "$lost_none" = 1 ] || status=1
    done
    stop_reflector
    grep -E 'reflected|drop' "$work/twampd.err" | tail -n 3 >&2 || true
done
echo
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
