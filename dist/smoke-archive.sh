#!/usr/bin/env bash
# Smoke test of a release archive, of this machine's architecture or, under qemu-user, of another:
# checks SHA256SUMS, unpacks it, and runs `twping -h` and `twping --loopback -c 10` from it (JAVA_HOME
# unset: the archive's launcher runs its own runtime/). An aarch64 archive on x86-64 runs under qemu-user through binfmt_misc,
# with the aarch64 libraries of dist/target/debian-jdk/sysroot-arm64 (dist/fetch-debian-jdk.sh makes it;
# the archive's runtime, Debian's, links the system's libstdc++ and zlib) as QEMU_LD_PREFIX.
#
# Usage: dist/smoke-archive.sh ARCHIVE
# Exit status: 0 passed, 1 failed, 77 cannot run here (no binfmt handler or sysroot for that
# architecture): one line says why.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
archive=${1:?usage: dist/smoke-archive.sh ARCHIVE}
archive=$(readlink -f "$archive")
cannot() { echo "SKIP smoke-archive: $*"; exit 77; }

arch=${archive##*-linux-}; arch=${arch%.tar.gz}
host=$(uname -m)
prefix=()
# twping -z: put the session's start off, so a JVM stalled past the default start margin (a loaded machine;
# qemu-user, where it runs tens of times slower) still sends its packets (it sends none after the session's end)
delay=5
loss_timeout=2
if [ "$arch" != "$host" ]; then
    [ "$arch" = aarch64 ] || cannot "no way to run a $arch archive on $host"
    command -v qemu-aarch64-static >/dev/null 2>&1 || cannot "no qemu-user (apt-get install qemu-user-static binfmt-support)"
    handler=/proc/sys/fs/binfmt_misc/qemu-aarch64
    { [ -r "$handler" ] && grep -q '^enabled' "$handler"; } \
        || cannot "no enabled binfmt_misc handler for aarch64 ($handler; update-binfmts --enable qemu-aarch64)"
    sysroot="$root/dist/target/debian-jdk/sysroot-arm64"
    [ -f "$sysroot/usr/lib/ld-linux-aarch64.so.1" ] || cannot "no aarch64 sysroot $sysroot (dist/fetch-debian-jdk.sh dist/target/debian-jdk)"
    prefix=(env QEMU_LD_PREFIX="$sysroot")
    delay=120
    loss_timeout=30   # replies of an emulated reflector to an emulated client, on a loaded machine
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/twping-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
result() { echo "$1 smoke-$arch-$2: $3"; [ "$1" = PASS ] || status=1; }

if (cd "$(dirname "$archive")" && grep " $(basename "$archive")\$" SHA256SUMS | sha256sum --quiet -c -); then
    result PASS sha256 "SHA256SUMS matches $(basename "$archive")"
else
    result FAIL sha256 "SHA256SUMS does not match (or lists no) $(basename "$archive")"
fi
tar -xzf "$archive" -C "$work"
tree=$(ls -d "$work"/twping-*)
file "$tree/runtime/bin/java" | grep -q "$( [ "$arch" = aarch64 ] && echo 'ARM aarch64' || echo 'x86-64')" \
    && result PASS runtime-arch "runtime/bin/java is an $arch executable: $(sed -n 's/^\(IMPLEMENTOR\|JAVA_VERSION\|JAVA_RUNTIME_VERSION\)=//p' "$tree/runtime/release" | tr -d '"' | paste -sd' ')" \
    || result FAIL runtime-arch "runtime/bin/java is not for $arch: $(file -b "$tree/runtime/bin/java")"
for f in LICENSE NOTICE licenses/THIRD-PARTY.txt licenses/java-runtime/java.base/LICENSE; do
    [ -s "$tree/$f" ] || result FAIL licences "$f missing"
done
result PASS licences "LICENSE, NOTICE, licenses/THIRD-PARTY.txt and licenses/java-runtime/ present"

clean_env=(env -u JAVA_HOME PATH=/usr/bin:/bin)
start=$SECONDS
if "${prefix[@]}" "${clean_env[@]}" timeout 600 "$tree/twping" -h >"$work/help.out" 2>&1 </dev/null \
        && grep -q '^usage: twping' "$work/help.out"; then
    result PASS help "twping -h: exit 0 and the usage ($((SECONDS - start)) s)"
else
    result FAIL help "twping -h: $(tail -n 3 "$work/help.out" | tr '\n' ' ')"
fi
start=$SECONDS
if (cd "$work" && "${prefix[@]}" "${clean_env[@]}" timeout 900 "$tree/twping" --loopback -c 10 -z "$delay" -L "$loss_timeout" -M >"$work/loopback.out" 2>&1 </dev/null) \
        && grep -q '^SENT	10$' "$work/loopback.out" && grep -q '^LOST	0$' "$work/loopback.out"; then
    result PASS loopback "twping --loopback -c 10 -z $delay -L $loss_timeout: SENT 10, LOST 0, -M MEDIAN $(awk -F'\t' '$1 == "MEDIAN" { print $2 }' "$work/loopback.out") s ($((SECONDS - start)) s)"
else
    result FAIL loopback "twping --loopback -c 10 -z $delay -L $loss_timeout: $(tail -n 5 "$work/loopback.out" | tr '\n' ' ')"
fi
exit "$status"
