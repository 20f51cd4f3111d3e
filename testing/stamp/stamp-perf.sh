#!/usr/bin/env bash
# STAMP on loopback: round-trip time and loss of ./twping --stamp against ./twampd --stamp at fixed rates.
#
#   testing/stamp/stamp-perf.sh [--rounds N] [--seconds S] [--rates R1,R2,...] [--twping-args 'ARGS']
#
# One reflector (./twampd --stamp 127.0.0.1:0) for the whole run; per rate and round one ./twping --stamp session
# of S seconds (default 5; packets = rate * S) with a fixed interval (-i 1/rate f), -M, 1-microsecond buckets
# (-b 0.000001) and a 2 s loss timeout. Prints a Markdown table on stdout (per rate: sent, lost % and the
# round-trip min/median/max of each round, then min/median/max of those over the rounds) and the load average
# before and after; progress on stderr. With --twping-args '--tlv fut' (or all) the TLV report's round-trip
# median with the reflector's kernel t3 (Follow-Up Telemetry) is a further column. Needs core/target/twping.jar (./mvnw -pl core -am package -DskipTests).
# Exit 0, 1 when a session failed, 2 on bad arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3
seconds=5
rates=500,50000
extra=""
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --rates) rates=$2; shift 2 ;;
        --twping-args) extra=$2; shift 2 ;;
        *) echo "stamp-perf.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
case $rounds$seconds in *[!0-9]*) echo "stamp-perf.sh: --rounds and --seconds take integers" >&2; exit 2 ;; esac
[ -f "$root/core/target/twping.jar" ] || { echo "stamp-perf.sh: build core/target/twping.jar first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/stamp-perf.XXXXXX")
pid=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    if [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
TWAMPD_READY_FILE="$work/ready" "$root/twampd" --stamp 127.0.0.1:0 -v >"$work/twampd.out" 2>"$work/twampd.err" &
pid=$!
for _ in $(seq 1 150); do
    [ -s "$work/ready" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/twampd.err" >&2; exit 1; }
    sleep 0.2
done
[ -s "$work/ready" ] || { echo "stamp-perf.sh: twampd did not start" >&2; exit 1; }
port=$(cat "$work/ready")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# min/median/max of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-" } else { printf "%s/%s/%s", v[1], v[int((NR + 1) / 2)], v[NR] } }'; }

status=0
echo "| rate /s | packets | round | sent | lost % | RTT min ms | RTT median ms | RTT max ms | RTT median kernel t3 ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
summary=""
IFS=, read -ra rate_list <<<"$rates"
for rate in "${rate_list[@]}"; do
    count=$((rate * seconds))
    interval=$(awk -v r="$rate" 'BEGIN { printf "%.9f", 1 / r }')
    : >"$work/loss" ; : >"$work/median"
    for round in $(seq 1 "$rounds"); do
        echo "stamp-perf.sh: $rate/s round $round ($count packets)" >&2
        # shellcheck disable=SC2086
        if ! "$root/twping" --stamp "127.0.0.1:$port" -c "$count" -i "${interval}f" -L 2 -b 0.000001 -M \
                $extra >"$work/out" 2>"$work/err"; then
            echo "stamp-perf.sh: twping failed:" >&2
            tail -n 5 "$work/err" >&2
            status=1
            continue
        fi
        awk -v rate="$rate" -v count="$count" -v round="$round" -F'\t' '
            $1 == "SENT" { sent = $2 } $1 == "LOST" { lost = $2 }
            $1 == "MIN" { min = $2 } $1 == "MEDIAN" { med = $2 } $1 == "MAX" { max = $2 }
            /^follow-up telemetry: .*rtt with kernel t3/ { split($0, a, " = "); split(a[2], b, "/"); kmed = b[2] }
            END { printf "| %d | %d | %d | %d | %.3f | %.4f | %.4f | %.4f | %s |\n", rate, count, round, sent,
                  sent ? 100 * lost / sent : 0, min * 1e3, med * 1e3, max * 1e3, kmed == "" ? "-" : kmed }' "$work/out"
        awk -F'\t' '$1 == "SENT" { s = $2 } $1 == "LOST" { l = $2 } END { printf "%.3f\n", s ? 100 * l / s : 0 }' \
            "$work/out" >>"$work/loss"
        awk -F'\t' '$1 == "MEDIAN" { printf "%.4f\n", $2 * 1e3 }' "$work/out" >>"$work/median"
    done
    summary+="| $rate | $rounds | $(stats <"$work/loss") | $(stats <"$work/median") |"$'\n'
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "| rate /s | rounds | lost % min/median/max | RTT median ms min/median/max |"
echo "|---:|---:|---:|---:|"
printf '%s' "$summary"
echo
echo "load average (1/5/15 min): before $load_before, after $load_after; $(nproc) CPUs"
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=""
echo "reflector: $(grep 'reflected' "$work/twampd.err" || true)"
exit $status
