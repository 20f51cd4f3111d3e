#!/usr/bin/env bash
# The Docker stand: the release image (dist/docker/Dockerfile over the release archive) runs our
# twampd, and our twping (and perfSONAR's C twping, when given) run in their own containers against
# it, side by side; with the C programs, the C twampd runs too and every client meets every server.
# Containers use the host's network on loopback only (127.0.0.1); nothing else is addressed.
#
# Works without a registry: the base image is Debian bookworm made here with debootstrap (minbase,
# plus `time`) and `docker import`, cached as an image tagged by its recipe, so later runs skip it.
# Starts dockerd when none answers (vfs storage, no iptables, no bridge) and stops it again at the
# end; removes its containers and per-run images on exit, failure, Ctrl-C and SIGTERM.
#
# Usage: testing/docker/run-stand.sh [--smoke] [--keep]
#   --smoke   the bounded CI pass: modes O and E, 20 packets each, no load comparison
#   --keep    keep the work directory (each run's .out/.err/.time, server logs) and print its path
# Environment:
#   TWPING_C, TWAMPD_C   perfSONAR's twping/twampd binaries, copied into the stand image (with the
#                        shared libraries ldd lists for them outside glibc); unset: the C half is skipped
#   STAND_DEADLINE       seconds for the whole run (default 1200, --smoke 600); then it stops and tears down
#   STAND_DEBIAN_MIRROR  Debian mirror for debootstrap (default: the first of /etc/apt's, else deb.debian.org)
#   STAND_LOAD_SECONDS, STAND_LOAD_RATES, STAND_LOAD_SERVER  the load comparison with C (not in --smoke),
#                        as in testing/netns-stand.sh
#   STAND_RELEASE_ARCHIVE  a release archive to use instead of building one from core/target/twping.jar
# Exit status: 0 all PASS (or SKIP), 1 a FAIL, 2 set-up error, 77 cannot run here (not root, no Docker,
# no debootstrap, no Debian mirror, dockerd does not start): one line says why.
set -euo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "$self")/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/stand-lib.sh
. "$ROOT/testing/lib/stand-lib.sh"

SMOKE=0 KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) SMOKE=1 ;;
        --keep) KEEP=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "run-stand.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done

cannot() { echo "SKIP docker-stand: $*"; exit 77; }
die() { echo "run-stand.sh: $*" >&2; exit 2; }

DEADLINE=${STAND_DEADLINE:-$([ "$SMOKE" = 1 ] && echo 600 || echo 1200)}
STARTED=$SECONDS
left() { echo $((DEADLINE - (SECONDS - STARTED))); }
# Runs a command with the time that is left (at most $1 seconds): bounded CMD...
bounded() {
    local most=$1 rest
    shift
    rest=$(left)
    [ "$rest" -gt 0 ] || { log "deadline of ${DEADLINE}s passed"; return 124; }
    [ "$rest" -lt "$most" ] && most=$rest
    timeout --kill-after=10 "$most" "$@"
}

# --- preconditions ------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || cannot "needs root (dockerd, debootstrap)"
command -v docker >/dev/null 2>&1 || cannot "no docker client (apt-get install docker.io)"
export DOCKER_BUILDKIT=0   # the classic builder: part of every engine, needs no buildx plugin

TAG="twstand-$$"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/twping-docker-stand.XXXXXX")
chmod 755 "$WORK"
DOCKERD_PID=""
CONTAINERS=()
IMAGES=()

teardown() {
    local status=$?
    trap - EXIT INT TERM
    if [ -n "$RELEASE_PID" ]; then
        # the background job's child is `timeout`, which passes SIGTERM on to the release build's group
        pkill -TERM -P "$RELEASE_PID" 2>/dev/null || true
        wait "$RELEASE_PID" 2>/dev/null || true
    fi
    # one call each: removing a container or an image deletes a whole copy of its tree with vfs
    if [ ${#CONTAINERS[@]} -gt 0 ]; then timeout 300 docker rm -f "${CONTAINERS[@]}" >/dev/null 2>&1 || true; fi
    if [ ${#IMAGES[@]} -gt 0 ]; then timeout 300 docker image rm -f "${IMAGES[@]}" >/dev/null 2>&1 || true; fi
    if declare -F release_engine >/dev/null; then release_engine; fi
    if [ "$KEEP" = 1 ]; then
        log "outputs kept in $WORK"
    else
        rm -rf "$WORK"
    fi
    exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the engine ---------------------------------------------------------------------------
# Stand runs share one engine: a run that finds none starts it and notes its pid in $ENGINE_STATE; every run
# registers itself under users/ while it runs; the last run to leave stops a dockerd a stand started (never
# one that was running before). The lock makes "is an engine up, else start one" and "am I the last" atomic,
# so two builds on one machine neither start two daemons nor stop one under the other.
ENGINE_STATE=/run/twping-docker-stand
mkdir -p "$ENGINE_STATE/users"
exec {ENGINE_LOCK}>"$ENGINE_STATE/lock"
flock -w 300 "$ENGINE_LOCK" || cannot "another stand run holds $ENGINE_STATE/lock for over 300 s"
REGISTERED=0
release_engine() {
    [ "$REGISTERED" = 1 ] || return 0
    flock -w 300 "$ENGINE_LOCK" || return 0
    rm -f "$ENGINE_STATE/users/$$"
    local f others=0
    for f in "$ENGINE_STATE"/users/*; do
        [ -e "$f" ] || continue
        if kill -0 "${f##*/}" 2>/dev/null; then others=$((others + 1)); else rm -f "$f"; fi
    done
    local pid
    pid=$(cat "$ENGINE_STATE/dockerd.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && [ "$others" = 0 ]; then
        log "stopping the dockerd a stand run started (pid $pid)"
        kill -TERM "$pid" 2>/dev/null || true
        local _
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        rm -f "$ENGINE_STATE/dockerd.pid"
    elif [ -n "$pid" ]; then
        log "leaving the stand's dockerd (pid $pid) to $others other stand run(s)"
    fi
    flock -u "$ENGINE_LOCK"
}
if ! timeout 20 docker info >/dev/null 2>&1; then
    command -v dockerd >/dev/null 2>&1 || cannot "no Docker engine answers and there is no dockerd (apt-get install docker.io)"
    log "starting dockerd (vfs storage, no iptables, no bridge; log: $WORK/dockerd.log)"
    # --bridge=none: no docker0 (it would take a 172.17/16 address); containers use the host network.
    setsid dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
        >"$WORK/dockerd.log" 2>&1 </dev/null &
    DOCKERD_PID=$!
    echo "$DOCKERD_PID" >"$ENGINE_STATE/dockerd.pid"
    if ! wait_until 60 "dockerd" timeout 10 docker info; then
        tail -n 5 "$WORK/dockerd.log" >&2
        KEEP=1
        REGISTERED=1
        cannot "dockerd did not start within 60 s (its log: $WORK/dockerd.log)"
    fi
fi
touch "$ENGINE_STATE/users/$$"
REGISTERED=1
flock -u "$ENGINE_LOCK"

# --- the release archive, built in the background while the base image is made ---------------
RELEASE_PID=""
archive=${STAND_RELEASE_ARCHIVE:-}
if [ -z "$archive" ]; then
    jar="$ROOT/core/target/twping.jar"
    if [ ! -f "$jar" ]; then
        log "building core/target/twping.jar"
        (cd "$ROOT" && bounded 600 ./mvnw -q -B -ntp -DskipTests -pl core -am package) || die "the jar build failed"
    fi
    log "release archive: dist/build-release.sh (log: $WORK/release.log)"
    bounded 600 "$ROOT/dist/build-release.sh" --out "$WORK/dist" --no-verify >"$WORK/release.log" 2>&1 </dev/null &
    RELEASE_PID=$!
fi

# --- the base image: Debian bookworm minbase from debootstrap, cached by recipe -------------
BASE_PACKAGES="time"
BASE_RECIPE="bookworm minbase include=$BASE_PACKAGES trim=doc,man,locale,info,apt-cache,apt-lists v1"
BASE_IMAGE="twping-stand-base:bookworm-$(printf '%s' "$BASE_RECIPE" | sha256sum | cut -c1-12)"

debian_mirror() {
    if [ -n "${STAND_DEBIAN_MIRROR:-}" ]; then echo "$STAND_DEBIAN_MIRROR"; return; fi
    local uri
    uri=$(sed -n 's/^URIs: *\(http[^ ]*debian\/*\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
    [ -n "$uri" ] || uri=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
    echo "${uri:-http://deb.debian.org/debian}"
}

build_base() {
    local root="$WORK/rootfs" mirror
    command -v debootstrap >/dev/null 2>&1 || cannot "no base image $BASE_IMAGE and no debootstrap (apt-get install debootstrap)"
    mirror=$(debian_mirror)
    log "base image: debootstrap --variant=minbase --include=$BASE_PACKAGES bookworm from $mirror (a few minutes, once)"
    if ! bounded 480 debootstrap --variant=minbase --include="$BASE_PACKAGES" bookworm "$root" "$mirror" \
            >"$WORK/debootstrap.log" 2>&1; then
        tail -n 5 "$WORK/debootstrap.log" >&2
        KEEP=1
        cannot "debootstrap from $mirror failed (log: $WORK/debootstrap.log)"
    fi
    rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/usr/share/info/* \
        "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/* \
        "$root"/var/log/*.log
    log "base image: docker import as $BASE_IMAGE"
    tar --numeric-owner -C "$root" -cf - . \
        | bounded 300 docker import --change 'CMD ["/bin/bash"]' \
            --message "Debian bookworm minbase ($BASE_RECIPE), made by testing/docker/run-stand.sh" - "$BASE_IMAGE" >/dev/null
    rm -rf "$root"
}

exec 9>/var/lock/twping-stand-base.lock
flock -w "$(left)" 9 || die "another run holds /var/lock/twping-stand-base.lock"
if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    log "base image $BASE_IMAGE (cached)"
else
    build_base
fi
flock -u 9

# --- the release archive and the image ----------------------------------------------------
if [ -n "$RELEASE_PID" ]; then
    release_rc=0
    wait "$RELEASE_PID" || release_rc=$?
    RELEASE_PID=""
    [ "$release_rc" = 0 ] || { tail -n 20 "$WORK/release.log" >&2; die "dist/build-release.sh failed (exit $release_rc)"; }
    archive=$(ls "$WORK"/dist/twping-*-linux-*.tar.gz)
    log "release archive $(basename "$archive") ($(($(stat -c %s "$archive") / 1024)) KiB)"
fi
[ -f "$archive" ] || die "no release archive at $archive"
(cd "$(dirname "$archive")" && [ ! -f SHA256SUMS ] || sha256sum --quiet -c SHA256SUMS) || die "checksum mismatch for $archive"
mkdir -p "$WORK/context"
tar -xzf "$archive" -C "$WORK/context"
tree=$(ls -d "$WORK"/context/twping-*)

IMAGE="twping-stand:$TAG"
log "image $IMAGE: $(basename "$archive") on $BASE_IMAGE (the release Dockerfile)"
IMAGES+=("$IMAGE")
bounded 300 docker build -q --network none --build-arg BASE_IMAGE="$BASE_IMAGE" -t "$IMAGE" "$tree" >"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log" >&2; die "docker build of the release image failed"; }

WITH_C=0
if [ -n "${TWPING_C:-}" ] && [ -n "${TWAMPD_C:-}" ]; then
    { [ -x "$TWPING_C" ] && [ -x "$TWAMPD_C" ]; } || die "TWPING_C=$TWPING_C or TWAMPD_C=$TWAMPD_C is not executable"
    mkdir -p "$WORK/c-context/c/bin" "$WORK/c-context/c/lib"
    cp "$TWPING_C" "$WORK/c-context/c/bin/twping"
    cp "$TWAMPD_C" "$WORK/c-context/c/bin/twampd"
    # Shared libraries outside glibc (perfSONAR's own, if any); glibc comes from the base image.
    for lib in $(ldd "$TWPING_C" "$TWAMPD_C" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u); do
        case "$(basename "$lib")" in
            libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux*) ;;
            *) cp -L "$lib" "$WORK/c-context/c/lib/" ;;
        esac
    done
    cat >"$WORK/c-context/Dockerfile" <<EOF
FROM $IMAGE
COPY c/ /opt/c/
ENV LD_LIBRARY_PATH=/opt/c/lib
EOF
    IMAGE_C="twping-stand-c:$TAG"
    IMAGES+=("$IMAGE_C")
    log "image $IMAGE_C: adds $TWPING_C and $TWAMPD_C as /opt/c/bin/twping, /opt/c/bin/twampd"
    bounded 300 docker build -q --network none -t "$IMAGE_C" "$WORK/c-context" >"$WORK/build-c.log" 2>&1 \
        || { cat "$WORK/build-c.log" >&2; die "docker build of the C image failed"; }
    IMAGE=$IMAGE_C
    WITH_C=1
else
    log "TWPING_C/TWAMPD_C not set: the C half (perfSONAR's twping and twampd) is skipped"
fi

# --- servers ------------------------------------------------------------------------------
# Two free loopback ports for the servers' control connections.
free_port() {
    local port
    for port in $(seq "$1" "$2"); do
        ss -Hltn "sport = :$port" 2>/dev/null | grep -q . || { echo "$port"; return 0; }
    done
    return 1
}
PORT_OURS=$(free_port 8621 8699) || die "no free TCP port in 8621-8699"
PORT_C=$(free_port $((PORT_OURS + 1)) 8799) || die "no free TCP port above $PORT_OURS"

UID_IMAGE=10001
# Server configuration for the container (mounted read-only at /etc/twamp): the stand's reference
# configuration with paths inside the container and a test port range of its own per server.
server_conf() {
    local dir=$1 port=$2 ports=$3
    write_server_conf "$dir" "127.0.0.1:$port"
    rm -rf "${dir:?}/var" "${dir:?}/data"
    sed -i -e "s|^vardir .*|vardir /tmp|" -e "s|^datadir .*|datadir /tmp|" -e "s|^testports .*|testports $ports|" \
        "$dir/twamp-server.conf"
    chown -R "$UID_IMAGE:$UID_IMAGE" "$dir"
}
server_conf "$WORK/conf-ours" "$PORT_OURS" 18760-19359
printf 'alice 7333637265742d6c61622d6b6579\n' >"$WORK/alice.pfs"
chmod 600 "$WORK/alice.pfs"
mkdir -p "$WORK/runs"
chown "$UID_IMAGE:$UID_IMAGE" "$WORK/alice.pfs" "$WORK/runs"

start_server() {
    local name=$1 port=$2
    shift 2
    CONTAINERS+=("$name")
    docker run -d --name "$name" --network host "$@" >/dev/null \
        || die "could not start the server container $name"
    if ! wait_until "$(( $(left) < 120 ? $(left) : 120 ))" "$name on 127.0.0.1:$port" \
            bash -c "ss -Hltn 'sport = :$port' | grep -q ."; then
        docker logs "$name" >&2 || true
        die "$name does not listen on 127.0.0.1:$port"
    fi
    log "$name listens on 127.0.0.1:$port"
}
start_server "$TAG-twampd-ours" "$PORT_OURS" --user "$UID_IMAGE:$UID_IMAGE" \
    -v "$WORK/conf-ours:/etc/twamp:ro" "$IMAGE" twampd -Z -c /etc/twamp
if [ "$WITH_C" = 1 ]; then
    server_conf "$WORK/conf-c" "$PORT_C" 19360-19960
    # The C twampd runs as root in its container (rootfolly in the configuration), as perfSONAR's does.
    start_server "$TAG-twampd-c" "$PORT_C" --user 0:0 -v "$WORK/conf-c:/etc/twamp:ro" "$IMAGE" \
        /opt/c/bin/twampd -Z -c /etc/twamp
fi

# --- clients, side by side ----------------------------------------------------------------
# The clients run in one container of their own (host network, the image's unprivileged user, the
# work directory mounted at the same path), one `docker exec` per run: /usr/bin/time -v inside writes
# the run's CPU and RSS into the work directory. (One container for all runs: with vfs storage each
# new container copies the whole image.)
CLIENTS="$TAG-clients"
CONTAINERS+=("$CLIENTS")
docker run -d --name "$CLIENTS" --network host --user "$UID_IMAGE:$UID_IMAGE" -v "$WORK:$WORK" \
    --entrypoint /bin/sleep "$IMAGE" "$DEADLINE" >/dev/null || die "could not start the client container"
# shellcheck disable=SC2034  # used by stand-lib.sh
STAND_CLIENT_EXEC=(docker exec "$CLIENTS")
OUR_TWPING=/opt/twping/twping
TWPING_C_IMAGE=/opt/c/bin/twping

# The image's launcher must find the AOT cache usable (COPY kept the jar's time stamp): with
# -XX:AOTMode=on the JVM refuses to start without it.
if timeout 60 docker exec -e TWPING_JAVA_OPTS=-XX:AOTMode=on "$CLIENTS" twping -h >"$WORK/aot-check.out" 2>&1; then
    result PASS docker-aot-cache "twping -h starts in the container with -XX:AOTMode=on (the archive's AOT cache is used)"
else
    result FAIL docker-aot-cache "twping -h with -XX:AOTMode=on failed: $(tail -n 2 "$WORK/aot-check.out" | tr '\n' ' ')"
fi

# The image carries the licences of what it bundles (the release tree's LICENSE, NOTICE, licenses/).
if timeout 60 docker exec "$CLIENTS" sh -c 'test -s /opt/twping/LICENSE && test -s /opt/twping/NOTICE \
        && test -s /opt/twping/licenses/THIRD-PARTY.txt && test -s /opt/twping/licenses/java-runtime/java.base/LICENSE' \
        >/dev/null 2>&1; then
    result PASS docker-licences "/opt/twping has LICENSE, NOTICE, licenses/THIRD-PARTY.txt and licenses/java-runtime/"
else
    result FAIL docker-licences "/opt/twping lacks LICENSE, NOTICE or licenses/ (THIRD-PARTY.txt, java-runtime/)"
fi

if [ "$SMOKE" = 1 ]; then MODES=(O E); COUNT=20; else MODES=(O A E M); COUNT=200; fi
servers=(ours)
clients=(ours)
[ "$WITH_C" = 1 ] && servers+=(c) && clients+=(c)
table="$WORK/side-by-side.md"
{
    echo "| server | client | mode | exit | sent | lost | RTT min/median/max us | wall s | CPU s | max RSS MiB |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
for server in "${servers[@]}"; do
    port=$PORT_OURS
    [ "$server" = c ] && port=$PORT_C
    for mode in "${MODES[@]}"; do
        for client in "${clients[@]}"; do
            bin=$OUR_TWPING
            [ "$client" = c ] && bin=$TWPING_C_IMAGE
            base="$WORK/runs/$server-srv-$client-cli-$mode"
            log "$client client -> $server server, mode $mode, $COUNT packets"
            [ "$(left)" -gt 30 ] || { result FAIL "docker-$server-srv-$client-cli-$mode" "no time left before the ${DEADLINE}s deadline"; continue; }
            run_client "$base" 120 STAND_CLIENT_EXEC "$bin" -A "$mode" -u alice -k "$WORK/alice.pfs" \
                -c "$COUNT" -i 0.01f -L 2 -b 0.000001 -M "127.0.0.1:$port"
            sent=$(mval "$base.out" SENT)
            lost=$(mval "$base.out" LOST)
            printf '| %s | %s | %s | %s | %s | %s | %s/%s/%s | %s | %s | %s |\n' "$server" "$client" "$mode" \
                "$RUN_RC" "${sent:--}" "${lost:--}" "$(us "$(mval "$base.out" MIN)")" \
                "$(us "$(mval "$base.out" MEDIAN)")" "$(us "$(mval "$base.out" MAX)")" \
                "$( [ -s "$base.time" ] && tv "$base.time" wall || echo -)" \
                "$( [ -s "$base.time" ] && tv "$base.time" cpu || echo -)" \
                "$( [ -s "$base.time" ] && tv "$base.time" rss || echo -)" >>"$table"
            if [ "$RUN_RC" -eq 0 ] && [ "$sent" = "$COUNT" ] && [ "$lost" = 0 ]; then
                result PASS "docker-$server-srv-$client-cli-$mode" "SENT=$sent LOST=$lost"
            else
                result FAIL "docker-$server-srv-$client-cli-$mode" "rc=$RUN_RC SENT=${sent:-none} LOST=${lost:-none}; $(tail -n 3 "$base.err" | tr '\n' ' ')"
            fi
        done
        if [ "$WITH_C" = 1 ]; then
            diffs=$(compare_struct "$WORK/runs/$server-srv-ours-cli-$mode.out" "$WORK/runs/$server-srv-c-cli-$mode.out")
            if [ -z "$diffs" ]; then
                result PASS "docker-$server-srv-$mode-structure" "our and the C client's -M agree on ${STAND_STRUCT_KEYS[*]}"
            else
                result FAIL "docker-$server-srv-$mode-structure" "differences: $diffs"
            fi
        fi
    done
done
echo
echo "Docker stand, host network on 127.0.0.1, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg):"
echo
cat "$table"
echo

if [ "$WITH_C" = 1 ] && [ "$SMOKE" = 0 ]; then
    TWPING_C=$TWPING_C_IMAGE
    addr="127.0.0.1:$PORT_C"
    [ "${STAND_LOAD_SERVER:-c}" = ours ] && addr="127.0.0.1:$PORT_OURS"
    read -r -a rates <<<"${STAND_LOAD_RATES:-1000 2000 5000 10000 20000}"
    load_compare "$WORK/runs" "$addr" "${STAND_LOAD_SECONDS:-5}" "${rates[@]}"
elif [ "$WITH_C" = 0 ]; then
    result SKIP docker-c-half "TWPING_C/TWAMPD_C not set: no C client or server in the stand"
fi

for c in "${CONTAINERS[@]}"; do
    docker logs "$c" >"$WORK/$c.log" 2>&1 || true
done
print_results
