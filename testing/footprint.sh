#!/usr/bin/env bash
# The CPU-seconds and megabytes of each program, ours beside the C reference, with where they go.
#
#   testing/footprint.sh [--rounds N] [--only help,c1,s2000,s5000,twampd,stamp] [--idle SECONDS] [--no-diag]
#                        [--ours-args 'ARGS'] [--keep DIR]
#
# Scenarios (each a separate process started as a user would, rounds alternating ours and C):
#   help    `twping -h`
#   c1      `twping -c 1` against the C twampd (our twampd when TWAMPD_C is unset)
#   s2000   `twping -c 2000 -i 0.002f -L 1 -R -F FILE` against the same (the flags of testing/compare-c.sh)
#   s5000   `twping -c 5000 -i 0.001 -L 1 -R -F FILE` (exponential, 1000/s)
#   twampd  the idle `twampd -Z` (open mode), sampled for --idle seconds (default 12: past the first 5 s native-heap trim after its warm-up) after it listens
#   stamp   the idle `twampd --stamp 127.0.0.1:0`, likewise after it is ready
# Per scenario and program: CPU (user + system, from wait4), wall, maximum RSS (the kernel's), threads, and the CPU
# of each thread group (sampled every 10 ms from /proc/PID/task; testing/lib/footprint.py); ours/C ratios. Then,
# unless --no-diag, one more run of ours per scenario with -XX:NativeMemoryTracking=summary, -XX:+CITime and
# class-load logging: memory by JVM category at exit (NMT committed; heap used from the GC log), JIT time per
# compiler, classes loaded and how many came from the AOT cache. Markdown on stdout, progress on stderr.
# Environment: TWPING_C, TWAMPD_C (the C reference; its rows are skipped, saying so, when unset);
# --ours-args adds arguments to our client; TWPING_JAVA_OPTS passes through to our launchers.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
lib="$root/testing/lib"
rounds=3 only=help,c1,s2000,s5000,twampd,stamp idle=12 diag=1 ours_args="" keep=""
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --idle) idle=$2; shift 2 ;;
        --no-diag) diag=0; shift ;;
        --ours-args) ours_args=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "footprint.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $rounds in '' | *[!0-9]* | 0) echo "footprint.sh: --rounds wants a positive integer" >&2; exit 2 ;; esac
command -v python3 >/dev/null || { echo "footprint.sh: python3 not found" >&2; exit 1; }
for v in TWPING_C TWAMPD_C; do
    if [ -n "${!v:-}" ] && [ ! -x "${!v}" ]; then
        echo "footprint.sh: $v=${!v} is not an executable file" >&2
        exit 2
    fi
done
"$root/twping" --print-java >/dev/null || exit 1
[ -f "$root/core/target/twping.jar" ] || "$root/twping" -h >/dev/null 2>&1 || true   # builds the jar once

work=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/footprint.XXXXXX")}
mkdir -p "$work"
results="$work/results.jsonl"
: >"$results"
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# One measured run: label, program, then the command.
measure() {
    local scenario=$1 prog=$2 round=$3; shift 3
    local json
    json=$(python3 "$lib/footprint.py" --log "$work/$scenario-$prog-$round.log" "$@")
    printf '{"scenario":"%s","prog":"%s","round":%s,"load":"%s","r":%s}\n' "$scenario" "$prog" "$round" "$(load)" \
        "$json" >>"$results"
    echo "footprint: $scenario $prog round $round: $json" | cut -c1-200 >&2
}

# A TWAMP server on 127.0.0.1 (open mode) for the client scenarios: the C twampd when known, else ours.
server_port=""
start_server() {
    local conf="$work/server-conf" bin
    mkdir -p "$conf"
    server_port=$(free_port)
    printf 'srcnode 127.0.0.1:%s\nauthmode O\n' "$server_port" >"$conf/twamp-server.conf"
    if [ -n "${TWAMPD_C:-}" ]; then bin=$TWAMPD_C; server_name="the C twampd"; else bin="$root/twampd"; server_name="our twampd (TWAMPD_C unset)"; fi
    "$bin" -Z -f -c "$conf" -R "$conf" >"$work/server.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 150); do
        if python3 -c "import socket,sys; s=socket.create_connection(('127.0.0.1',$server_port),0.2)" 2>/dev/null; then
            return 0
        fi
        sleep 0.2   # polling a port that is not open yet, bounded (30 s)
    done
    echo "footprint.sh: the server did not listen on 127.0.0.1:$server_port (see $work/server.log)" >&2
    exit 1
}

want() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
client_args() {
    case $1 in
        c1) echo "-c 1" ;;
        s2000) echo "-c 2000 -i 0.002f -L 1 -R -F $work/s2000.owp" ;;
        s5000) echo "-c 5000 -i 0.001 -L 1 -R -F $work/s5000.owp" ;;
    esac
}

started=$(date -u +%Y-%m-%dT%H:%M:%SZ) load_start=$(load)
if want c1 || want s2000 || want s5000; then
    start_server
    echo "footprint: server: $server_name on 127.0.0.1:$server_port" >&2
fi
for round in $(seq 1 "$rounds"); do
    if want help; then
        measure help ours "$round" "$root/twping" -h
        [ -n "${TWPING_C:-}" ] && measure help C "$round" "$TWPING_C" -h
    fi
    for s in c1 s2000 s5000; do
        want "$s" || continue
        # shellcheck disable=SC2046,SC2086
        measure "$s" ours "$round" "$root/twping" $ours_args $(client_args "$s") "127.0.0.1:$server_port"
        # shellcheck disable=SC2046
        [ -n "${TWPING_C:-}" ] && measure "$s" C "$round" "$TWPING_C" $(client_args "$s") "127.0.0.1:$server_port"
    done
    if want twampd; then
        conf="$work/idle-conf"; mkdir -p "$conf"
        printf 'srcnode 127.0.0.1:%s\nauthmode O\n' "$(free_port)" >"$conf/twamp-server.conf"
        rm -f "$work/ready"
        measure twampd ours "$round" --idle "$idle" --ready-file "$work/ready" "$root/twampd" -Z -f -c "$conf" -R "$conf"
        [ -n "${TWAMPD_C:-}" ] && measure twampd C "$round" --idle "$idle" "$TWAMPD_C" -Z -f -c "$conf" -R "$conf"
    fi
    if want stamp; then
        rm -f "$work/ready"
        measure stamp ours "$round" --idle "$idle" --ready-file "$work/ready" "$root/twampd" --stamp 127.0.0.1:0
    fi
done
load_end=$(load)

echo "## Footprint"
echo
echo "$started, $rounds rounds, $(nproc) CPUs, load average $load_start at the start, $load_end at the end;" \
    "clients against ${server_name:-no server}. Each cell: median over the rounds (min–max)."
[ -n "${TWPING_C:-}" ] || echo "- the C client: skipped, TWPING_C is not set"
[ -n "${TWAMPD_C:-}" ] || echo "- the C twampd: skipped, TWAMPD_C is not set"
[ -z "$ours_args" ] || echo "- ours with \`$ours_args\`"
[ -z "${TWPING_JAVA_OPTS:-}" ] || echo "- TWPING_JAVA_OPTS=\`$TWPING_JAVA_OPTS\`"
echo
python3 "$lib/footprint.py" --report "$results"

if [ "$diag" = 1 ]; then
    diag_opts="-XX:NativeMemoryTracking=summary -XX:+UnlockDiagnosticVMOptions -XX:+PrintNMTStatistics -XX:+CITime -Xlog:gc+heap+exit=info:file=$work/diag-gc.log -Xlog:class+load=info:file=$work/diag-classes.log"
    echo
    echo "### Where ours goes (one more run each, with NMT, CITime and the class-load log; NMT itself adds a little)"
    echo
    for s in help c1 s2000 s5000 twampd stamp; do
        want "$s" || continue
        rm -f "$work/diag-gc.log" "$work/diag-classes.log" "$work/ready"
        case $s in
            help) TWPING_JAVA_OPTS="${TWPING_JAVA_OPTS:-} $diag_opts" python3 "$lib/footprint.py" --log "$work/diag-$s.log" "$root/twping" -h >/dev/null ;;
            twampd) TWPING_JAVA_OPTS="${TWPING_JAVA_OPTS:-} $diag_opts" python3 "$lib/footprint.py" --log "$work/diag-$s.log" --idle "$idle" --ready-file "$work/ready" "$root/twampd" -Z -f -c "$work/idle-conf" -R "$work/idle-conf" >/dev/null ;;
            stamp) TWPING_JAVA_OPTS="${TWPING_JAVA_OPTS:-} $diag_opts" python3 "$lib/footprint.py" --log "$work/diag-$s.log" --idle "$idle" --ready-file "$work/ready" "$root/twampd" --stamp 127.0.0.1:0 >/dev/null ;;
            # shellcheck disable=SC2046,SC2086
            *) TWPING_JAVA_OPTS="${TWPING_JAVA_OPTS:-} $diag_opts" python3 "$lib/footprint.py" --log "$work/diag-$s.log" "$root/twping" $ours_args $(client_args "$s") "127.0.0.1:$server_port" >/dev/null ;;
        esac
        python3 "$lib/footprint.py" --diag "$s" "$work/diag-$s.log" "$work/diag-gc.log" "$work/diag-classes.log"
    done
    echo
    echo "NMT: committed memory at exit, MB (the heap's used part is logged only when the JVM exits through"
    echo "System.exit; twping halts); JIT: the compiler threads' time as -XX:+CITime reports it (elapsed, so"
    echo "above their CPU under load); classes: loaded / from the AOT cache or CDS archive."
fi
[ -z "$keep" ] || echo "Raw outputs in $work."
