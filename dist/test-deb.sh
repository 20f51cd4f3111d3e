#!/usr/bin/env bash
# Tests the Debian package (dist/build-deb.sh) in a fresh Debian root: installs it with dpkg (no network),
# runs the installed commands, checks the users, the alternatives and the configuration's owners,
# `systemd-analyze verify` on its units, removal and purge, and lintian (no error or warning that its
# lintian-overrides do not justify). Prints PASS/FAIL lines and a summary.
#
# Usage: dist/test-deb.sh [DEB]        DEB default: the newest dist/target/twping-java_*_amd64.deb
# The root is Debian bookworm made with debootstrap (minbase plus adduser, systemd, procps: what the units
# need to be verified), cached as a tarball under dist/target/deb-root/ so later runs skip it.
# Environment: STAND_DEBIAN_MIRROR (default: the machine's first Debian mirror, else deb.debian.org).
# Exit status: 0 all passed, 1 a failure, 77 cannot run here (not root, no debootstrap, chroot, lintian or
# systemd-analyze; debootstrap failed): one line says why.
set -euo pipefail

root_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
deb=${1:-}
if [ -z "$deb" ]; then
    # shellcheck disable=SC2012  # names made by build-deb.sh
    deb=$(ls -t "$root_dir"/dist/target/twping-java_*_amd64.deb 2>/dev/null | head -n 1 || true)
fi
cannot() { echo "SKIP deb-test: $*"; exit 77; }
[ -f "$deb" ] || { echo "test-deb: no package (dist/build-deb.sh makes one)" >&2; exit 2; }
deb=$(readlink -f "$deb")
[ "$(id -u)" = 0 ] || cannot "needs root (debootstrap, chroot)"
for tool in debootstrap chroot lintian systemd-analyze; do
    command -v "$tool" >/dev/null 2>&1 || cannot "no $tool (apt-get install debootstrap lintian systemd)"
done

say() { printf '[deb-test %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
passed=0 failed=0
pass() { echo "PASS $1: $2"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
check() { # check NAME DESCRIPTION CMD...
    local name=$1 what=$2
    shift 2
    if out=$("$@" 2>&1); then pass "$name" "$what"; else fail "$name" "$what: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/twping-deb-test.XXXXXX")
root="$work/root"
cleanup() {
    umount "$root/proc" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

mirror=${STAND_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\/*\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
    mirror=${mirror:-http://deb.debian.org/debian}
fi
recipe="bookworm minbase include=adduser,systemd,procps v1"
cache="$root_dir/dist/target/deb-root/bookworm-$(printf '%s' "$recipe" | sha256sum | cut -c1-12).tar"
mkdir -p "$root"
if [ ! -f "$cache" ]; then
    say "debootstrap --variant=minbase --include=adduser,systemd,procps bookworm from $mirror (once; cached as $cache)"
    mkdir -p "$(dirname "$cache")"
    timeout 900 debootstrap --variant=minbase --include=adduser,systemd,procps bookworm "$root" "$mirror" \
        >"$work/debootstrap.log" 2>&1 || { tail -n 5 "$work/debootstrap.log" >&2; cannot "debootstrap from $mirror failed"; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar --numeric-owner -C "$root" -cf "$cache.part" . && mv "$cache.part" "$cache"
else
    say "root from $cache"
    tar --numeric-owner -C "$root" -xf "$cache"
fi
mount -t proc proc "$root/proc"
cp "$deb" "$root/tmp/"
name=$(basename "$deb")
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

# A stand-in for another provider of /usr/bin/twping (perfSONAR's owamp packages would be one): the
# package's alternative must install beside it, and the admin's choice must switch between them.
printf '#!/bin/sh\necho other-twping\n' >"$root/usr/local/bin/other-twping"
chmod 755 "$root/usr/local/bin/other-twping"
in_root update-alternatives --install /usr/bin/twping twping /usr/local/bin/other-twping 10 >/dev/null

check install "dpkg -i $name in a fresh bookworm root (no network)" in_root dpkg -i "/tmp/$name"
check users "system users twampd, twampd-stamp, twping-agent" \
    in_root sh -c 'for u in twampd twampd-stamp twping-agent; do getent passwd "$u" | grep -q ":/nonexistent:/usr/sbin/nologin$" || exit 1; done'
check alternatives "update-alternatives: twping points at /usr/lib/twping-java/twping (priority 50 over 10), twampd too" \
    in_root sh -c 'readlink -f /usr/bin/twping | grep -qx /usr/lib/twping-java/twping && readlink -f /usr/bin/twampd | grep -qx /usr/lib/twping-java/twampd && update-alternatives --query twping | grep -q "^Alternative: /usr/local/bin/other-twping"'
check alternatives-choice "the admin can choose the other provider and back" \
    in_root sh -c 'update-alternatives --set twping /usr/local/bin/other-twping >/dev/null && [ "$(twping)" = other-twping ] && update-alternatives --auto twping >/dev/null && readlink -f /usr/bin/twping | grep -qx /usr/lib/twping-java/twping'
check man-pages "man pages twping.1.gz and twampd.8.gz (alternative slaves) with the options" \
    in_root sh -c 'zcat /usr/share/man/man1/twping.1.gz | grep -q "number of test packets" && zcat /usr/share/man/man8/twampd.8.gz | grep -q "Do not daemonize"'
check config "/etc/twping-java: twampd/ root:twampd 750, agent.yaml root:twping-agent 640" \
    in_root sh -c '[ "$(stat -c "%U:%G %a" /etc/twping-java/twampd)" = "root:twampd 750" ] && [ "$(stat -c "%U:%G %a" /etc/twping-java/agent.yaml)" = "root:twping-agent 640" ]'
check help "twping -h and twampd -h from the installed tree" \
    in_root sh -c 'twping -h 2>&1 | grep -q "^usage: twping" && twampd -h | grep -q "^Usage: twampd"'
loopback() {
    in_root sh -c 'cd /tmp && twping --loopback -c 10 -i 0.01f -z 5 -M' >"$work/loopback.out" 2>&1 \
        && grep -q "^SENT	10$" "$work/loopback.out" && grep -q "^LOST	0$" "$work/loopback.out"
}
check loopback "twping --loopback -c 10 -z 5 from the installed tree: SENT 10, LOST 0" loopback
check aot-cache "the installed AOT cache is usable (-XX:AOTMode=on)" \
    in_root env TWPING_JAVA_OPTS=-XX:AOTMode=on twping -h
check agent-config "the packaged agent.yaml is valid (twping --agent ... --check)" \
    in_root twping --agent /etc/twping-java/agent.yaml --check
units=(twampd.service twping-agent.service twampd-stamp@default.service)
check systemd-verify "systemd-analyze verify --root of ${units[*]}" \
    systemd-analyze verify --man=no --root="$root" "${units[@]/#//lib/systemd/system/}"
check hardening "every unit: its own user, NoNewPrivileges, ProtectSystem=strict, Restart=on-failure; CAP_NET_BIND_SERVICE only for 862" \
    sh -c 'cd "$1/lib/systemd/system" && for u in twampd.service twampd-stamp@.service twping-agent.service; do
        grep -q "^User=" "$u" && grep -qx "NoNewPrivileges=yes" "$u" && grep -qx "ProtectSystem=strict" "$u" && grep -qx "Restart=on-failure" "$u" || exit 1
    done && ! grep -q "^AmbientCapabilities" twping-agent.service && grep -qx "CapabilityBoundingSet=" twping-agent.service
    [ "$(grep -h "^User=" twampd.service twampd-stamp@.service twping-agent.service | sort -u | wc -l)" = 3 ]' _ "$root"
check remove "dpkg -r: the alternatives fall back to the other provider" \
    in_root sh -c 'dpkg -r twping-java >/dev/null && [ "$(twping)" = other-twping ] && [ ! -e /usr/bin/twampd ] && [ ! -e /usr/lib/twping-java ]'
check purge "dpkg -P: the configuration goes" in_root sh -c 'dpkg -P twping-java >/dev/null && [ ! -e /etc/twping-java ]'

say "lintian $name"
lintian_out="$work/lintian.out"
lintian_rc=0
# (the exit status is not used: with --show-overrides lintian 2.116 exits 2 although every tag is overridden)
lintian --display-info --show-overrides "$deb" >"$lintian_out" 2>&1 || lintian_rc=$?
sed 's/^/  lintian: /' "$lintian_out"
if grep -q '^[IO]: twping-java' "$lintian_out" && ! grep -E '^[EW]: ' "$lintian_out" | grep -q .; then
    pass lintian "no error or warning that the package's lintian-overrides do not justify ($(grep -c '^O: ' "$lintian_out" || true) overridden, $(grep -c '^I: ' "$lintian_out" || true) info)"
else
    fail lintian "errors or warnings above (exit $lintian_rc)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
