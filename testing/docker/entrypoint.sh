#!/usr/bin/env bash
# Entry point of the comparison container (testing/docker/Dockerfile); also usable on any host
# that has both implementations. Commands:
#   compare    (default) the interoperability matrix and the load comparison: across network
#              namespaces (testing/netns-stand.sh) when the container may create them
#              (docker run --privileged), else over loopback inside the container
#   stand      the whole namespace stand (all scenarios, then the C comparison)
#   loopback   the comparison over 127.0.0.1, without namespaces
#   shell      an interactive shell
# Environment: TWPING_C, TWAMPD_C (default: perfSONAR's twping/twampd from PATH or /usr/sbin),
# STAND_LOAD_SECONDS, STAND_LOAD_RATES, STAND_LOAD_SERVER (see testing/netns-stand.sh).
set -euo pipefail
self=$(readlink -f "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "$self")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/stand-lib.sh
. "$ROOT/testing/lib/stand-lib.sh"

TWPING_C=${TWPING_C:-$(command -v twping 2>/dev/null || true)}
TWAMPD_C=${TWAMPD_C:-$(command -v twampd 2>/dev/null || { [ -x /usr/sbin/twampd ] && echo /usr/sbin/twampd; } || true)}
export TWPING_C TWAMPD_C
OUR_TWPING=${STAND_TWPING:-$ROOT/twping}
OUR_TWAMPD=${STAND_TWAMPD:-$ROOT/twampd}

netns_possible() {
    local probe="twstand-probe-$$"
    ip netns add "$probe" >/dev/null 2>&1 || return 1
    ip netns del "$probe" >/dev/null 2>&1
}

# The servers started by loopback(), stopped on exit.
LOOPBACK_PIDS=()
stop_servers() {
    local pid
    for pid in "${LOOPBACK_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${LOOPBACK_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# The comparison over loopback: our twampd on 127.0.0.1:8621, the C one on 127.0.0.1:8620.
loopback() {
    local work status=0
    work=$(mktemp -d "${TMPDIR:-/tmp}/twping-compare.XXXXXX")
    trap stop_servers EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    write_server_conf "$work/srv-ours" 127.0.0.1:8621
    write_server_conf "$work/srv-c" 127.0.0.1:8620
    printf 'alice 7333637265742d6c61622d6b6579\n' >"$work/alice.pfs"
    chmod 600 "$work/alice.pfs"
    "$OUR_TWAMPD" -Z -c "$work/srv-ours" >"$work/twampd-ours.log" 2>&1 </dev/null &
    LOOPBACK_PIDS+=("$!")
    "$TWAMPD_C" -Z -c "$work/srv-c" >"$work/twampd-c.log" 2>&1 </dev/null &
    LOOPBACK_PIDS+=("$!")
    wait_until 120 "our twampd on 127.0.0.1:8621" bash -c "ss -Hltn 'sport = :8621' | grep -q ." || { cat "$work/twampd-ours.log" >&2; return 1; }
    wait_until 60 "the C twampd on 127.0.0.1:8620" bash -c "ss -Hltn 'sport = :8620' | grep -q ." || { cat "$work/twampd-c.log" >&2; return 1; }
    # shellcheck disable=SC2034  # used by stand-lib.sh
    STAND_CLIENT_EXEC=()
    interop_matrix "$work" 127.0.0.1:8621 127.0.0.1:8620 "$work/alice.pfs" 50 -D EF
    local addr=127.0.0.1:8620 rates
    [ "${STAND_LOAD_SERVER:-c}" = ours ] && addr=127.0.0.1:8621
    read -r -a rates <<<"${STAND_LOAD_RATES:-1000 2000 5000 10000 20000}"
    load_compare "$work" "$addr" "${STAND_LOAD_SECONDS:-5}" "${rates[@]}"
    log "outputs in $work"
    print_results || status=1
    return "$status"
}

if [ -z "$TWPING_C" ] || [ -z "$TWAMPD_C" ]; then
    echo "entrypoint: perfSONAR's twping/twampd not found (set TWPING_C and TWAMPD_C)" >&2
    exit 2
fi

case "${1:-compare}" in
    compare)
        if netns_possible; then
            exec "$ROOT/testing/netns-stand.sh" --only c-interop,c-load
        fi
        log "cannot create network namespaces here (run the container with --privileged); comparing over loopback"
        loopback
        ;;
    stand) exec "$ROOT/testing/netns-stand.sh" ;;
    loopback) loopback ;;
    shell) exec bash ;;
    *) echo "entrypoint: unknown command '$1' (compare, stand, loopback, shell)" >&2; exit 2 ;;
esac
