#!/usr/bin/env bash
# Builds the Debian package twping-java_VERSION_ARCH.deb from a release archive (dist/build-release.sh):
# no network at install time, everything is inside. See docs/INSTALL.md, "Debian package".
#
#   /usr/lib/twping-java/        the archive's launchers, runtime/ (jlink) and lib/ (jar, AOT cache)
#   /usr/bin/twping, /usr/bin/twampd   update-alternatives links (priority 50; beside other providers such
#                                as perfSONAR's owamp packages; the admin chooses with update-alternatives)
#   /usr/share/man/man1/twping-java.1.gz, man8/twampd-java.8.gz  made by help2man from `twping -h` and
#                                `twampd -h` of the packaged tree (slaves twping.1.gz, twampd.8.gz)
#   /lib/systemd/system/         twampd.service, twampd-stamp@.service, twping-agent.service
#   /etc/twping-java/            twampd/twamp-server.conf, stamp-default.env, agent.yaml (conffiles)
#   /usr/share/doc/twping-java/  README.md, docs/, NOTICE, licenses/ (of the archive), copyright, changelog
# The packaging sources are deploy/debian/. Depends are read from the runtime's ELF files (the highest
# GLIBC_ symbol version, and libstdc++/libgcc_s/libz when the runtime links them).
#
# Usage: dist/build-deb.sh [--out DIR] [ARCHIVE]
#   ARCHIVE  default: dist/target/twping-VERSION-linux-ARCH.tar.gz of this machine's architecture, newest
#   --out    default: the archive's directory
# Needs dpkg-deb (>= 1.19, --root-owner-group), help2man, objdump (binutils), gzip. The man pages run the
# packaged twping, so an archive of another architecture needs qemu-user (binfmt_misc) and QEMU_LD_PREFIX.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
out=""
archive=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "build-deb: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) archive=$1; shift ;;
    esac
done
die() { echo "build-deb: $*" >&2; exit 1; }
say() { printf '[deb %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
for tool in dpkg-deb help2man objdump strip gzip; do
    command -v "$tool" >/dev/null 2>&1 || die "needs $tool (apt-get install dpkg-dev help2man binutils)"
done
if [ -z "$archive" ]; then
    case "$(uname -m)" in x86_64) a=x86_64 ;; aarch64) a=aarch64 ;; *) die "unsupported machine $(uname -m)" ;; esac
    # shellcheck disable=SC2012  # names made by build-release.sh
    archive=$(ls -t "$root"/dist/target/twping-*-linux-"$a".tar.gz 2>/dev/null | head -n 1 || true)
fi
[ -f "$archive" ] || die "no release archive (build one: ./mvnw -B -ntp package -Prelease)"
archive=$(readlink -f "$archive")
out=${out:-$(dirname "$archive")}
base=$(basename "$archive" .tar.gz)                       # twping-0.1.0-SNAPSHOT-linux-x86_64
upstream=${base#twping-}; upstream=${upstream%-linux-*}   # 0.1.0-SNAPSHOT
case "${base##*-linux-}" in
    x86_64) deb_arch=amd64 ;;
    aarch64) deb_arch=arm64 ;;
    *) die "cannot tell the architecture of $archive" ;;
esac
version=${upstream//-/\~}                                 # 0.1.0~SNAPSHOT: sorts before 0.1.0
src="$root/deploy/debian"

work=$(mktemp -d "${TMPDIR:-/tmp}/twping-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
tree="$work/twping-$upstream"
[ -x "$tree/runtime/bin/java" ] || die "$archive holds no twping-$upstream/runtime"
pkg="$work/pkg"
epoch=${SOURCE_DATE_EPOCH:-$(stat -c %Y "$tree/lib/twping.jar")}

say "twping-java $version $deb_arch from $(basename "$archive")"
lib="$pkg/usr/lib/twping-java"
doc="$pkg/usr/share/doc/twping-java"
mkdir -p "$lib" "$doc" "$pkg/usr/share/man/man1" "$pkg/usr/share/man/man8" "$pkg/lib/systemd/system" \
    "$pkg/etc/twping-java/twampd" "$pkg/usr/share/lintian/overrides" "$pkg/DEBIAN"
# cp -a keeps the time stamps: the AOT cache is used only while the jar's size and mtime are the ones it recorded
cp -a "$tree/twping" "$tree/twampd" "$tree/runtime" "$tree/lib" "$lib/"
cp -a "$tree/README.md" "$tree/NOTICE" "$tree/docs" "$tree/licenses" "$doc/"
# the JDK's legal/ files are read-only (0444); Debian's permissions for data files are 0644
find "$pkg" -type f -perm 0444 -exec chmod 644 {} +
# Debian ships stripped objects (symbols go to -dbgsym packages); the upstream runtime keeps its symbol
# tables. strip -p keeps the time stamps; the AOT cache checks the jar and the runtime's modules image,
# not the native libraries (dist/test-deb.sh runs the installed tree with -XX:AOTMode=on).
if [ "$deb_arch" = "$(dpkg --print-architecture)" ]; then
    find "$lib/runtime" -type f \( -name '*.so' -o -perm -u+x \) -print0 | while IFS= read -r -d '' f; do
        if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
            strip -p --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
        fi
    done
fi

# Man pages: help2man over wrappers that print the packaged commands' usage on stdout (twping prints it on
# stderr, after its clock-synchronisation warnings, as the C twping does) and the version.
mkdir -p "$work/man"
for cmd in twping twampd; do
    cat >"$work/man/$cmd" <<EOF
#!/bin/sh
case "\$1" in
    --version) echo "$cmd $upstream" ;;
    *) "$lib/$cmd" -h 2>&1 </dev/null | grep -v '^$cmd: NTP:' | grep -v '^$cmd: *\$' | sed '1s/^usage:/Usage:/' ;;
esac
EOF
    chmod 755 "$work/man/$cmd"
done
help2man --no-info --section=1 --source="twping-java $upstream" --help-option=-h --version-option=--version \
    --name="TWAMP, STAMP and TWAMP-Light client (twping-java, the Java port of perfSONAR's twping)" \
    "$work/man/twping" >"$work/twping-java.1"
help2man --no-info --section=8 --source="twping-java $upstream" --help-option=-h --version-option=--version \
    --name="TWAMP server and STAMP/TWAMP-Light reflector (twping-java, the Java port of perfSONAR's twampd)" \
    "$work/man/twampd" >"$work/twampd-java.8"
grep -q '^\.SH SYNOPSIS' "$work/twping-java.1" && grep -q 'number of test packets' "$work/twping-java.1" || die "the twping man page is empty"
grep -q 'Do not daemonize' "$work/twampd-java.8" || die "the twampd man page is empty"
gzip -9n <"$work/twping-java.1" >"$pkg/usr/share/man/man1/twping-java.1.gz"
gzip -9n <"$work/twampd-java.8" >"$pkg/usr/share/man/man8/twampd-java.8.gz"

install -m 644 "$src/twampd.service" "$src/twampd-stamp@.service" "$src/twping-agent.service" "$pkg/lib/systemd/system/"
install -m 644 "$src/twamp-server.conf" "$pkg/etc/twping-java/twampd/"
install -m 644 "$src/stamp-default.env" "$src/agent.yaml" "$pkg/etc/twping-java/"
install -m 644 "$src/lintian-overrides" "$pkg/usr/share/lintian/overrides/twping-java"
install -m 755 "$src/postinst" "$src/prerm" "$pkg/DEBIAN/"
printf '%s\n' /etc/twping-java/twampd/twamp-server.conf /etc/twping-java/stamp-default.env \
    /etc/twping-java/agent.yaml >"$pkg/DEBIAN/conffiles"

# copyright (machine-readable; the component list is the build's licenses/THIRD-PARTY.txt) and changelog
install -m 644 "$src/copyright.head" "$doc/copyright"
{
    echo "twping-java ($version) unstable; urgency=medium"
    echo
    echo "  * Built by dist/build-deb.sh from the release archive"
    echo "    $(basename "$archive")."
    echo
    echo " -- $(sed -n 's/^Maintainer: //p' "$src/control.in")  $(date -u -R -d "@$epoch")"
} | gzip -9n >"$doc/changelog.gz"

# Depends from the runtime's ELF files
glibc=$(find "$lib/runtime" -type f \( -name '*.so' -o -perm -u+x \) -exec objdump -T {} + 2>/dev/null \
    | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[ -n "$glibc" ] || die "no GLIBC_ symbol versions found in the runtime (objdump cannot read $deb_arch files?)"
needed=$(find "$lib/runtime" -type f -name '*.so' -exec objdump -p {} + 2>/dev/null | awk '$1 == "NEEDED" { print $2 }' | sort -u)
depends="libc6 (>= $glibc)"
grep -q '^libstdc++' <<<"$needed" && depends="$depends, libstdc++6"
grep -q '^libgcc_s' <<<"$needed" && depends="$depends, libgcc-s1"
grep -q '^libz\.' <<<"$needed" && depends="$depends, zlib1g"
depends="$depends, adduser"

find "$pkg" -path "$pkg/DEBIAN" -prune -o -type d -exec chmod 755 {} +
installed_size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$deb_arch|" -e "s|@DEPENDS@|$depends|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" "$src/control.in" >"$pkg/DEBIAN/control"
(cd "$pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$pkg/DEBIAN/md5sums"
# one time stamp for what the archive did not bring (the archive's files keep theirs, equal to it)
find "$pkg" -newermt "@$epoch" -exec touch -h -d "@$epoch" {} +

deb="$out/twping-java_${version}_${deb_arch}.deb"
mkdir -p "$out"
# gzip: xz takes minutes for the 90 MiB tree on a loaded 2-core machine, for a 20 % smaller file
dpkg-deb --root-owner-group -Zgzip -z9 --build "$pkg" "$deb" >/dev/null
say "$deb: $(($(stat -c %s "$deb") / 1024)) KiB; Depends: $depends"
printf '%s\n' "$deb"
