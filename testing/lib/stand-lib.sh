# shellcheck shell=bash
# Shared helpers of the stands: result lines, `-M` parsing, timed client runs, the send-time
# lateness of `-R` records, Markdown tables, and the comparison with the C implementation
# (interoperability matrix and load table). Sourced by testing/netns-stand.sh and by
# testing/docker/run-stand.sh; it defines functions and variables only.
#
# The comparison functions run clients through a prefix the caller sets (an array):
#   STAND_CLIENT_EXEC  e.g. (ip netns exec twstand-c-123), or () on loopback
# and find the binaries in OUR_TWPING, OUR_TWAMPD, TWPING_C, TWAMPD_C.

STAND_RESULTS=()
STAND_FAILS=0

# Records and prints one scenario result: result PASS|FAIL|SKIP name details...
result() {
    local verdict=$1 name=$2
    shift 2
    local line="$verdict $name: $*"
    STAND_RESULTS+=("$line")
    [ "$verdict" = FAIL ] && STAND_FAILS=$((STAND_FAILS + 1))
    printf '%s\n' "$line"
}

# Prints all result lines again, then a count line. Returns 1 if any FAIL.
print_results() {
    local line pass=0 skip=0
    echo
    echo "== results =="
    for line in "${STAND_RESULTS[@]}"; do
        printf '%s\n' "$line"
        case "$line" in PASS*) pass=$((pass + 1)) ;; SKIP*) skip=$((skip + 1)) ;; esac
    done
    echo "== $pass passed, $STAND_FAILS failed, $skip skipped =="
    [ "$STAND_FAILS" -eq 0 ]
}

log() { printf '[stand %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# Value of KEY in a `-M` output file (first occurrence), or empty: mval FILE KEY
mval() {
    awk -F'\t' -v k="$2" '$1 == k { print $2; found = 1; exit } END { if (!found) print "" }' "$1"
}

# Waits until a command succeeds, polling every 0.1 s: wait_until SECONDS DESCRIPTION CMD...
# Returns 1 (after a message) when the deadline passes.
wait_until() {
    local seconds=$1 what=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    while ! "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            log "timed out after ${seconds}s waiting for $what"
            return 1
        fi
        sleep 0.1
    done
}

# Runs one client with a deadline and /usr/bin/time -v; never fails the caller.
#   run_client OUTBASE DEADLINE_S EXEC_PREFIX_ARRAY_NAME BINARY ARGS...
# Writes OUTBASE.out (stdout), OUTBASE.err (stderr), OUTBASE.time (time -v), sets RUN_RC.
run_client() {
    local base=$1 deadline=$2 prefix_name=$3
    shift 3
    local -n prefix_ref=$prefix_name
    RUN_RC=0
    # In the background and waited for, so that a signal to the stand is handled at once. At the
    # deadline SIGQUIT first: a JVM prints its thread dump (into OUTBASE.out) and goes on, so
    # SIGKILL follows 5 s later.
    timeout -s QUIT --kill-after=5 "$deadline" "${prefix_ref[@]}" /usr/bin/time -v -o "$base.time" "$@" \
        >"$base.out" 2>"$base.err" </dev/null &
    wait $! || RUN_RC=$?
    if [ "$RUN_RC" -eq 124 ] || [ "$RUN_RC" -eq 137 ]; then
        echo "stand: client stopped at the ${deadline}s deadline (SIGQUIT, then SIGKILL; a JVM prints its thread dump to stdout)" >>"$base.err"
    fi
    return 0
}

# Fields of a /usr/bin/time -v output: tv FILE cpu|rss|wall|pct
tv() {
    awk -F': ' -v what="$2" '
        /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { r = $2 }
        /Percent of CPU/ { p = $2 } /Elapsed/ { w = $2 }
        END {
            if (what == "cpu") printf "%.2f", u + s
            else if (what == "rss") printf "%.1f", r / 1024
            else if (what == "pct") print p
            else if (what == "wall") {
                n = split(w, a, ":"); t = 0
                for (i = 1; i <= n; i++) t = t * 60 + a[i]
                printf "%.2f", t
            }
        }' "$1"
}

# Seconds (as printed by -M with %g) to a fixed microsecond string: us 0.000162 -> 162.0
us() {
    [ -n "$1" ] || { echo "-"; return; }
    awk -v v="$1" 'BEGIN { printf "%.1f", v * 1e6 }'
}

# Send-time analysis of `-R` records (one line per record; field 1 = sender seq, field 2 =
# sender send time as a 20-digit Num64). For a fixed interval d (seconds) the schedule is
# t0 + seq*d; t0 is taken as the earliest (send time - seq*d), so lateness >= 0 and it is
# measured against the best-kept slot. For any schedule it also reports the inter-send
# intervals. Prints: "late_p50_us late_p99_us late_max_us ivl_mean_us ivl_sd_us" with "-" for
# what does not apply (exponential: no lateness). Num64 values are split into 10-digit halves
# so the differences are exact in awk's doubles.
#   send_lateness RFILE FIXED_INTERVAL_S|-
send_lateness() {
    sort -n -k1,1 -u "$1" | awk -v d="$2" '
        function num(s,   hi, lo) {
            while (length(s) < 20) s = "0" s
            hi = substr(s, 1, 10) + 0; lo = substr(s, 11, 10) + 0
            return hi * 1e10 + lo
        }
        NF >= 16 && $2 !~ /^0+$/ {
            s = $2; while (length(s) < 20) s = "0" s
            if (n == 0) { hi0 = substr(s, 1, 10) + 0; lo0 = substr(s, 11, 10) + 0 }
            t = ((substr(s, 1, 10) + 0 - hi0) * 1e10 + (substr(s, 11, 10) + 0 - lo0)) / 4294967296.0
            seq[n] = $1 + 0; ts[n] = t; n++
        }
        END {
            if (n < 2) { print "- - - - -"; exit }
            sum = 0; sq = 0
            for (i = 1; i < n; i++) { iv = ts[i] - ts[i - 1]; sum += iv; sq += iv * iv }
            m = sum / (n - 1); var = sq / (n - 1) - m * m; if (var < 0) var = 0
            ivl = sprintf("%.1f %.1f", m * 1e6, sqrt(var) * 1e6)
            if (d == "-") { print "- - - " ivl; exit }
            t0 = ts[0] - seq[0] * d
            for (i = 1; i < n; i++) { o = ts[i] - seq[i] * d; if (o < t0) t0 = o }
            for (i = 0; i < n; i++) late[i] = (ts[i] - seq[i] * d - t0) * 1e6
            # insertion sort would be O(n^2); use a simple heap-free approach: bucket by 1 us
            max = 0
            for (i = 0; i < n; i++) { b = int(late[i]); cnt[b]++; if (late[i] > max) max = late[i] }
            p50 = -1; p99 = -1; acc = 0
            for (b = 0; b <= int(max); b++) {
                acc += cnt[b]
                if (p50 < 0 && acc >= 0.50 * n) p50 = b
                if (p99 < 0 && acc >= 0.99 * n) { p99 = b; break }
            }
            printf "%d %d %.1f %s\n", p50, p99, max, ivl
        }'
}

# --- comparison with the C implementation -------------------------------------------------

# The keys compared between the two clients' -M outputs (structure, not timing).
STAND_STRUCT_KEYS=(SENT LOST DUPS_FWD DUPS_BCK PACKET_PADDING SESSION_PACKET_COUNT DSCP
    MINTTL_FWD MAXTTL_FWD MINTTL_BCK MAXTTL_BCK)

# Compares the structural keys of two -M files; prints the differences (nothing when equal).
compare_struct() {
    local a=$1 b=$2 key va vb diffs=""
    for key in "${STAND_STRUCT_KEYS[@]}"; do
        va=$(mval "$a" "$key")
        vb=$(mval "$b" "$key")
        [ "$va" = "$vb" ] || diffs+="$key ours=${va:-none} c=${vb:-none}; "
    done
    printf '%s' "$diffs"
}

# Interoperability matrix: for each server (ours, C) and mode, both clients run the same test
# against it; each run must succeed with SENT = count, and the two -M outputs must agree on
# the structural keys.
#   interop_matrix WORKDIR OUR_SERVER_ADDR C_SERVER_ADDR PFS COUNT [EXTRA_ARGS...]
interop_matrix() {
    local work=$1 our_addr=$2 c_addr=$3 pfs=$4 count=$5
    shift 5
    local extra=("$@") server addr mode client base ok diffs sent lost
    for server in ours c; do
        if [ "$server" = ours ]; then addr=$our_addr; else addr=$c_addr; fi
        for mode in O A E M; do
            ok=1
            local details=""
            for client in ours c; do
                base="$work/interop-$server-srv-$client-cli-$mode"
                local bin=$OUR_TWPING
                [ "$client" = c ] && bin=$TWPING_C
                run_client "$base" 120 STAND_CLIENT_EXEC "$bin" -A "$mode" -u alice -k "$pfs" \
                    -c "$count" -i 0.01f -L 1 -M "${extra[@]}" "$addr"
                sent=$(mval "$base.out" SENT)
                lost=$(mval "$base.out" LOST)
                details+="$client client rc=$RUN_RC SENT=${sent:-none} LOST=${lost:-none}; "
                if [ "$RUN_RC" -ne 0 ] || [ "$sent" != "$count" ]; then
                    ok=0
                    details+="($(tail -n 2 "$base.err" | tr '\n' ' ')) "
                fi
            done
            diffs=$(compare_struct "$work/interop-$server-srv-ours-cli-$mode.out" \
                "$work/interop-$server-srv-c-cli-$mode.out")
            [ -n "$diffs" ] && ok=0
            if [ "$ok" = 1 ]; then
                result PASS "c-interop-$server-server-$mode" "${details}structural keys equal"
            else
                result FAIL "c-interop-$server-server-$mode" "${details}${diffs:+differences: $diffs}"
            fi
        done
    done
}

# Load comparison: both clients against the same server, open mode, fixed and exponential
# schedules, padding 0 and 1000. Prints one Markdown table; every run is kept under WORKDIR.
#   load_compare WORKDIR SERVER_ADDR SECONDS_PER_RUN RATE...
load_compare() {
    local work=$1 addr=$2 secs=$3
    shift 3
    local rates=("$@") rate sched pad client count ivl base bin late
    local table="$work/load-table.md"
    {
        echo "| client | rate/s | schedule | padding | sent | lost | wall s | CPU s | max RSS MiB | RTT min/median/max us | send lateness p50/p99/max us | send interval mean/sd us |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >"$table"
    for rate in "${rates[@]}"; do
        count=$((rate * secs))
        ivl=$(awk -v r="$rate" 'BEGIN { s = sprintf("%.9f", 1 / r); sub(/0+$/, "", s); print s }')
        for sched in f e; do
            for pad in 0 1000; do
                for client in ours c; do
                    bin=$OUR_TWPING
                    [ "$client" = c ] && bin=$TWPING_C
                    base="$work/load-$client-$rate-$sched-$pad"
                    log "load: $client client, $rate/s, schedule $sched, padding $pad"
                    # the -M run gives loss and RTT (-b 1 us: the median is a histogram value);
                    # a second, identical run with -R gives the send times (twping cannot print
                    # both from one session).
                    run_client "$base" $((secs * 3 + 60)) STAND_CLIENT_EXEC "$bin" -A O -c "$count" \
                        -i "${ivl}${sched}" -s "$pad" -L 2 -b 0.000001 -M "$addr"
                    local m_rc=$RUN_RC
                    run_client "$base-R" $((secs * 3 + 60)) STAND_CLIENT_EXEC "$bin" -A O -c "$count" \
                        -i "${ivl}${sched}" -s "$pad" -L 2 -R "$addr"
                    if [ "$sched" = f ]; then
                        late=$(send_lateness "$base-R.out" "$ivl")
                    else
                        late=$(send_lateness "$base-R.out" -)
                    fi
                    read -r lp50 lp99 lmax imean isd <<<"$late"
                    local sent lost
                    sent=$(mval "$base.out" SENT)
                    lost=$(mval "$base.out" LOST)
                    [ "$m_rc" -eq 0 ] || sent="rc=$m_rc ${sent}"
                    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s/%s/%s | %s/%s/%s | %s/%s |\n' \
                        "$client" "$rate" "$([ "$sched" = f ] && echo fixed || echo exp)" "$pad" \
                        "${sent:--}" "${lost:--}" "$(tv "$base.time" wall)" "$(tv "$base.time" cpu)" \
                        "$(tv "$base.time" rss)" "$(us "$(mval "$base.out" MIN)")" \
                        "$(us "$(mval "$base.out" MEDIAN)")" "$(us "$(mval "$base.out" MAX)")" \
                        "$lp50" "$lp99" "$lmax" "$imean" "$isd" >>"$table"
                done
            done
        done
    done
    echo
    cat "$table"
    echo
    result PASS c-load "table above (also in $table); the RTT columns are from -M, lateness from -R of a second run"
}

# Writes a server configuration directory for one twampd: write_server_conf DIR SRCNODE [AUTHMODE]
# The pfs file is the recorded reference one (alice / s3cret-lab-key).
write_server_conf() {
    local dir=$1 srcnode=$2 authmode=${3:-OAEM}
    mkdir -p "$dir/var" "$dir/data"
    cat >"$dir/twamp-server.conf" <<EOF
# written by the stand (testing/lib/stand-lib.sh) for one run
rootfolly
verbose
srcnode $srcnode
testports 18760-19960
vardir $dir/var
datadir $dir/data
authmode $authmode
EOF
    cat >"$dir/twamp-server.limits" <<'EOF'
# allow everything (open, authenticated, encrypted, mixed), as the recorded reference server
limit root with disk=0,\
		bandwidth=0,\
		delete_on_fetch=on,\
		allow_open_mode=on

limit regular with parent=root,\
		allow_open_mode=on

limit trusted with parent=root,\
		allow_open_mode=on

assign default regular
assign user alice trusted
EOF
    printf 'alice 7333637265742d6c61622d6b6579\n' >"$dir/twamp-server.pfs"
    chmod 600 "$dir/twamp-server.pfs"
}
