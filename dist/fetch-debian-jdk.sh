#!/usr/bin/env bash
# Fetches Debian's OpenJDK 25 for another architecture (its jmods, which jlink needs to make that
# architecture's runtime) and a minimal sysroot of the same suite to run the result under qemu-user,
# through apt with a private configuration: its own sources.list, state, cache and dpkg status under
# DIR/apt, so the machine's own apt sources and package database are left alone. Nothing is installed;
# the packages are unpacked with dpkg-deb -x.
#
# Usage: dist/fetch-debian-jdk.sh [--arch arm64] [--suite trixie] [--mirror URL] DIR
#   DIR/jdk-ARCH      the JDK home (jmods/, legal/, bin/) of openjdk-25-jdk-headless + -jre-headless
#   DIR/sysroot-ARCH  libc6, libstdc++6, libgcc-s1, zlib1g of the suite (QEMU_LD_PREFIX for qemu-user)
#   DIR/jdk-ARCH.version  the Debian package version (e.g. 25.0.5.1+2-1~deb13u1)
# Prints the JDK home on stdout. Needs apt-get, dpkg-deb, the Debian archive keyring and a Debian mirror
# (default: the one the machine's sources use, else deb.debian.org). Downloads about 150 MB once; later
# runs reuse DIR/apt/cache.
set -euo pipefail

arch=arm64
suite=trixie
mirror=""
dir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=$2; shift 2 ;;
        --suite) suite=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fetch-debian-jdk: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || { echo "fetch-debian-jdk: DIR is missing (see --help)" >&2; exit 2; }
for tool in apt-get dpkg-deb; do
    command -v "$tool" >/dev/null 2>&1 || { echo "fetch-debian-jdk: needs $tool (a Debian system)" >&2; exit 2; }
done
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || { echo "fetch-debian-jdk: needs $keyring (apt-get install debian-archive-keyring)" >&2; exit 2; }
if [ -z "$mirror" ]; then
    mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\/*\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
    mirror=${mirror:-http://deb.debian.org/debian}
fi
mirror=${mirror%/}
security=${mirror%/debian}/debian-security

say() { printf '[fetch-jdk %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
apt="$dir/apt"
mkdir -p "$apt/etc/apt.conf.d" "$apt/etc/preferences.d" "$apt/etc/sources.list.d" "$apt/state/lists/partial" \
    "$apt/cache/archives/partial" "$apt/debs"
host=$(dpkg --print-architecture)
cat >"$apt/etc/sources.list" <<EOF
deb [arch=$host,$arch signed-by=$keyring] $mirror $suite main
deb [arch=$host,$arch signed-by=$keyring] $mirror $suite-updates main
deb [arch=$host,$arch signed-by=$keyring] $security $suite-security main
EOF
: >"$apt/status"
cat >"$apt/apt.conf" <<EOF
Dir::Etc "$apt/etc";
Dir::Etc::SourceList "$apt/etc/sources.list";
Dir::Etc::SourceParts "$apt/etc/sources.list.d";
Dir::Etc::Parts "$apt/etc/apt.conf.d";
Dir::Etc::PreferencesParts "$apt/etc/preferences.d";
Dir::State "$apt/state";
Dir::State::status "$apt/status";
Dir::Cache "$apt/cache";
APT::Architecture "$host";
APT::Architectures { "$host"; "$arch"; };
Debug::NoLocking "true";
APT::Sandbox::User "root";
EOF
export APT_CONFIG="$apt/apt.conf"

say "apt-get update ($suite, $suite-updates, $suite-security for $host and $arch from $mirror; private state in $apt)"
timeout 600 apt-get -q update >"$apt/update.log" 2>&1 || { tail -n 5 "$apt/update.log" >&2; exit 1; }

jdk_packages=(openjdk-25-jdk-headless openjdk-25-jre-headless)
sysroot_packages=(libc6 libstdc++6 libgcc-s1 zlib1g)
version=$(apt-cache policy "openjdk-25-jdk-headless:$arch" | awk '$1 == "Candidate:" { print $2 }')
{ [ -n "$version" ] && [ "$version" != "(none)" ]; } || { echo "fetch-debian-jdk: $suite has no openjdk-25-jdk-headless for $arch" >&2; exit 1; }
say "openjdk-25-jdk-headless:$arch $version"
(
    cd "$apt/debs"
    pkgs=()
    for p in "${jdk_packages[@]}"; do pkgs+=("$p:$arch=$version"); done
    for p in "${sysroot_packages[@]}"; do pkgs+=("$p:$arch"); done
    need=()
    for p in "${pkgs[@]}"; do
        name=${p%%:*}
        ls "${name}"_*_"$arch".deb >/dev/null 2>&1 || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
        say "apt-get download ${need[*]}"
        timeout 900 apt-get -q download "${need[@]}" >"$apt/download.log" 2>&1 || { tail -n 5 "$apt/download.log" >&2; exit 1; }
    fi
)

jdk_root="$dir/jdk-$arch.unpacked"
sysroot="$dir/sysroot-$arch"
rm -rf "$jdk_root" "$sysroot" "$dir/jdk-$arch"
for p in "${jdk_packages[@]}"; do
    deb=$(ls "$apt/debs/${p}_"*"_$arch.deb" | tail -n 1)
    dpkg-deb -x "$deb" "$jdk_root"
done
for p in "${sysroot_packages[@]}"; do
    deb=$(ls "$apt/debs/${p}_"*"_$arch.deb" | tail -n 1)
    dpkg-deb -x "$deb" "$sysroot"
done
# merged /usr: base-files makes /lib -> usr/lib on a real system, so the loader's path /lib/ld-linux-*.so.1 resolves
for d in lib bin sbin; do [ -e "$sysroot/$d" ] || ln -s "usr/$d" "$sysroot/$d"; done
home=$(ls -d "$jdk_root"/usr/lib/jvm/java-25-openjdk-"$arch")
[ -d "$home/jmods" ] && [ -f "$home/jmods/java.base.jmod" ] \
    || { echo "fetch-debian-jdk: openjdk-25-jdk-headless:$arch $version carries no jmods/java.base.jmod:" >&2
         dpkg-deb -c "$(ls "$apt/debs/openjdk-25-jdk-headless_"*"_$arch.deb" | tail -n 1)" | grep -E 'jmods|bin/jlink' >&2 || true
         exit 1; }
ln -sfn "$home" "$dir/jdk-$arch"
printf '%s\n' "$version" >"$dir/jdk-$arch.version"
say "JDK home $dir/jdk-$arch ($(sed -n 's/^JAVA_RUNTIME_VERSION=//p' "$home/release" | tr -d '"')), $(ls "$home/jmods" | wc -l) jmods; sysroot $sysroot"
printf '%s\n' "$dir/jdk-$arch"
