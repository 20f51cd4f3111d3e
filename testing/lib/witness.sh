# shellcheck shell=bash
# The `witness` scenario of testing/netns-stand.sh (docs/TESTING.md "The wire witness"): tcpdump with
# nanosecond time stamps on the client's interface (c0) and on the reflector's (s0) while a twping -R run
# measures; testing/lib/witness.py matches every test packet by its sequence number and prints the error
# of t1..t4 and of the RTT against the captures. Sourced by the stand after its helpers; defines
# functions only and uses the stand's namespaces, addresses, servers and result lines.
#
#   --smoke: our client against our twampd, 200 packets at 200/s; fails on any consistency problem and on
#            errors far above honest ones (witness.py --smoke-interval-us), which is what a timestamp on the
#            wrong packet, a clock-domain mix-up or an off-by-one in the TX error queue produce.
#   full:    the four pairings (ours/C client x ours/C twampd; the C half skips without TWPING_C and
#            TWAMPD_C) and our STAMP client against our STAMP reflector, at 500/s and 10,000/s, idle and
#            beside `stress-ng --cpu 1`; a Markdown table of |error| p50/p99/p99.9/max per timestamp.
# Environment: STAND_WITNESS_SECONDS (seconds per full run, default 3), STAND_WITNESS_RATES (default
# "500 10000").

WITNESS_PY="$ROOT/testing/lib/witness.py"
WITNESS_C_PORT=8622
WITNESS_ROWS=()

# witness_tcpdump NS IFACE FILE: starts a capture in the background (its pid in WITNESS_PID), waits
# until it listens
witness_tcpdump() {
    local ns=$1 ifc=$2 file=$3 pid
    # -Z root: the work directory is root's; -U: every packet written at once; -B: 16 MiB for 10,000/s
    ip netns exec "$ns" tcpdump -i "$ifc" -n -s 160 -B 16384 -U -Z root --time-stamp-precision=nano \
        -w "$file" "udp and portrange ${TESTPORTS}" >"$file.log" 2>&1 </dev/null &
    pid=$!
    SERVER_PIDS+=("$pid")
    if ! wait_until 30 "tcpdump on $ifc" grep -q 'listening on' "$file.log"; then
        kill -TERM "$pid" 2>/dev/null || true
        return 1
    fi
    WITNESS_PID=$pid
}

witness_stop() {
    local pid
    for pid in "$@"; do kill -INT "$pid" 2>/dev/null || true; done
    for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}

# Drops reported by tcpdump at its end (0 when the line is missing)
witness_drops() {
    sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$1.log" | head -n 1 | grep . || echo 0
}

# witness_run NAME CLIENT_BINARY COUNT INTERVAL_US HOG SMOKE CLIENT_ARGS...
witness_run() {
    local name=$1 bin=$2 count=$3 interval_us=$4 hog=$5 smoke=$6
    shift 6
    local cpcap="$WORK/$name.c.pcap" spcap="$WORK/$name.s.pcap" cpid spid hog_pid="" load p out
    local interval
    interval=$(awk -v u="$interval_us" 'BEGIN { printf "%.6ff", u / 1e6 }')
    witness_tcpdump "$NS_C" c0 "$cpcap" || { result FAIL "$name" "tcpdump did not start on c0: $(head -c 300 "$cpcap.log")"; return 0; }
    cpid=$WITNESS_PID
    witness_tcpdump "$NS_S" s0 "$spcap" || { witness_stop "$cpid"; result FAIL "$name" "tcpdump did not start on s0: $(head -c 300 "$spcap.log")"; return 0; }
    spid=$WITNESS_PID
    if [ "$hog" = 1 ]; then
        stress-ng --cpu 1 --timeout "$((count * interval_us / 1000000 + 30))s" --quiet >/dev/null 2>&1 </dev/null &
        hog_pid=$!
    fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    tw_bin "$name" "$bin" -c "$count" -i "$interval" -L 2 -R "$@"
    [ -n "$hog_pid" ] && { kill -TERM "$hog_pid" 2>/dev/null || true; wait "$hog_pid" 2>/dev/null || true; }
    witness_stop "$cpid" "$spid"
    p=""
    [ "$RUN_RC" -eq 0 ] || p+="client exit status $RUN_RC: $(tail -n 2 "$WORK/$name.err" | tr '\n' ' '); "
    local args=(analyse --client-pcap "$cpcap" --server-pcap "$spcap" --raw "$WORK/$name.out"
        --client-ip "$C4" --server-ip "$S4" --json "$WORK/$name.witness.json")
    [ "$smoke" = 1 ] && args+=(--smoke-interval-us "$interval_us")
    out=$(python3 "$WITNESS_PY" "${args[@]}" 2>&1) || p+="$(grep -v '^|' <<<"$out" | grep -E 'problem|witness.py' | tr '\n' ' ')"
    local drops="c0 $(witness_drops "$cpcap"), s0 $(witness_drops "$spcap")"
    if [ "$bin" = "$TWPING_C" ] && [ "$(witness_answered "$WORK/$name.witness.json")" = 0 ]; then
        # the C client's own outcome, not a defect of ours: say so and go on
        result SKIP "$name" "the C client recorded no reply: $(head -n 1 <<<"$out"); capture drops $drops; load $load"
    else
        report "$name" "$p" "$(head -n 1 <<<"$out"); capture drops $drops; load $load"
    fi
    WITNESS_ROWS+=("$name|$load|$WORK/$name.witness.json")
}

# tw_bin NAME BINARY ARGS: like tw, any client binary
tw_bin() {
    local name=$1 bin=$2
    shift 2
    log "run $name: $bin $*"
    run_client "$WORK/$name" "${TW_DEADLINE:-$CLIENT_DEADLINE}" STAND_CLIENT_EXEC "$bin" "$@"
}

witness_answered() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["answered"])' "$1" 2>/dev/null || echo 0
}

# Markdown table of the full run: per run |error| p50/p99/p99.9/max in us; "t1 kernel" leaves out the
# records whose t1 is the packet's own (user-space) stamp, counted in "t1 = user"
witness_table() {
    local row name load json
    echo "| client → reflector | rate/s | hog | load | answered | t1 kernel | t1 = user | t1 | t2 | t3 | t4 | RTT |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for row in "${WITNESS_ROWS[@]}"; do
        IFS='|' read -r name load json <<<"$row"
        [ -s "$json" ] || continue
        python3 - "$json" "$name" "$load" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
parts = sys.argv[2].split("-")[1:]  # witness[-stamp]-CLIENT-REFLECTOR-RATE-hogN
proto = "STAMP " if parts[0] == "stamp" else ""
if proto:
    parts = parts[1:]
client, refl, rate, hog = parts
f = lambda v: "-" if v is None else (f"{v / 1000:.1f}" if v < 10_000_000 else f"{v / 1e6:.0f} ms")
cell = lambda n: "/".join(f(r["stats"][n][k]) for k in ("p50", "p99", "p999", "max")) if r["stats"][n]["count"] else "-"
cells = [cell("t1k"), str(r["t1_is_packet_stamp"])] + [cell(n) for n in ("t1", "t2", "t3", "t4", "rtt")]
print(f"| {proto}{client} → {refl} | {rate} | {'yes' if hog == 'hog1' else 'no'} | {sys.argv[3]} | "
      f"{r['answered']}/{r['wire']['client_requests']} | " + " | ".join(cells) + " |")
EOF
    done
}

sc_witness() {
    if ! command -v tcpdump >/dev/null 2>&1; then
        result SKIP witness "tcpdump is not installed (apt-get install tcpdump)"
        return 0
    fi
    if ! python3 "$WITNESS_PY" self-test >"$WORK/witness-selftest.out" 2>&1; then
        result FAIL witness-selftest "$(tr '\n' ' ' <"$WORK/witness-selftest.out")"
        return 0
    fi
    nft_load udp 0 0
    if [ "$SMOKE" = 1 ]; then
        witness_run witness "$OUR_TWPING" 200 5000 0 1 "$ADDR4"
        return 0
    fi
    local seconds=${STAND_WITNESS_SECONDS:-3} rates rate hog n iv cserver=0 stamp_pid="" ready="$WORK/witness-stamp.ready"
    read -r -a rates <<<"${STAND_WITNESS_RATES:-500 10000}"
    if [ -n "$TWPING_C" ] && [ -n "$TWAMPD_C" ]; then
        write_server_conf "$WORK/srv-wc" "$S4:$WITNESS_C_PORT"
        start_server twampd-wc "$WORK/srv-wc" "$TWAMPD_C"
        await_server twampd-wc "$WITNESS_C_PORT" && cserver=1
        [ "$cserver" = 1 ] || result FAIL witness-c "the C twampd did not start (log above)"
    else
        result SKIP witness-c "TWPING_C/TWAMPD_C not set: the pairings with the C client or the C twampd do not run"
    fi
    if ! command -v stress-ng >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq -o DPkg::Lock::Timeout=300 stress-ng >/dev/null 2>&1 || true
    fi
    TWAMPD_READY_FILE="$ready" ip netns exec "$NS_S" "$OUR_TWAMPD" --stamp "$S4:$STAMP_PORT" \
        >"$WORK/witness-stamp-reflector.log" 2>&1 </dev/null &
    stamp_pid=$!
    SERVER_PIDS+=("$stamp_pid")
    wait_until 120 "the STAMP reflector" test -s "$ready" || stamp_pid=""
    for hog in 0 1; do
        if [ "$hog" = 1 ] && ! command -v stress-ng >/dev/null 2>&1; then
            result SKIP witness-hog "stress-ng is not installed"
            break
        fi
        for rate in "${rates[@]}"; do
            n=$((rate * seconds)) iv=$((1000000 / rate))
            local tag="${rate}-hog$hog"
            witness_run "witness-ours-ours-$tag" "$OUR_TWPING" "$n" "$iv" "$hog" 0 "$ADDR4"
            if [ "$cserver" = 1 ]; then
                witness_run "witness-ours-C-$tag" "$OUR_TWPING" "$n" "$iv" "$hog" 0 "$S4:$WITNESS_C_PORT"
                witness_run "witness-C-ours-$tag" "$TWPING_C" "$n" "$iv" "$hog" 0 "$ADDR4"
                witness_run "witness-C-C-$tag" "$TWPING_C" "$n" "$iv" "$hog" 0 "$S4:$WITNESS_C_PORT"
            fi
            [ -n "$stamp_pid" ] && witness_run "witness-stamp-ours-ours-$tag" "$OUR_TWPING" "$n" "$iv" "$hog" 0 --stamp "$S4:$STAMP_PORT"
        done
    done
    [ -n "$stamp_pid" ] && { kill -TERM "$stamp_pid" 2>/dev/null || true; wait "$stamp_pid" 2>/dev/null || true; }
    witness_table | tee "$WORK/witness-table.md"
}
