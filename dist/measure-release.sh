#!/usr/bin/env bash
# Measures the release archive against the launcher-on-a-JDK way: archive size, and the wall time and
# maximum resident set size of `twping -h` and of `twping -c 1 --loopback`, over several rounds
# (min/median/max), with the load average before and after. Prints a Markdown table.
#
# Usage: dist/measure-release.sh [--rounds N] [ARCHIVE]
#   ARCHIVE   default: the newest dist/target/twping-*-linux-ARCH.tar.gz of this machine's architecture
#             (./mvnw -B -ntp package -Prelease)
# The ways, run in turn within each round so that load changes touch all of them alike:
#   release          the unpacked archive's ./twping (jlink runtime, AOT cache)
#   release, no AOT  the same with TWPING_CDS=0 (no AOT cache: what the cache saves)
#   JDK              the repository's ./twping on the installed JDK 25, with its dynamic CDS archive
#                    (core/target/Main.jsa, made by a warm-up run first)
#   JDK, first run   the same with the CDS archive deleted before each run (the run makes it at exit)
# Needs /usr/bin/time and core/target/twping.jar.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
rounds=7
archive=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) archive=$1; shift ;;
    esac
done
if [ -z "$archive" ]; then
    # shellcheck disable=SC2012  # names made by build-release.sh
    archive=$(ls -t "$root"/dist/target/twping-*-linux-"$(uname -m)".tar.gz 2>/dev/null | head -n 1 || true)
fi
[ -f "$archive" ] || { echo "measure-release: no archive (build one: ./mvnw -B -ntp package -Prelease)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "measure-release: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -f "$root/core/target/twping.jar" ] || { echo "measure-release: needs core/target/twping.jar" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/twping-measure.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xzf "$archive" -C "$work"
tree=$(ls -d "$work"/twping-*)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# one measured run: sample WAY COMMAND-NAME ENV... -- LAUNCHER ARGS...  (appends "wall rss_kb" to a file)
sample() {
    local way=$1 what=$2
    shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local file
    file="$work/$(printf '%s' "$way-$what" | tr -c 'a-zA-Z0-9' _).samples"
    if ! env "${envs[@]}" /usr/bin/time -f '%e %M' -o "$work/t" timeout 60 "$@" >"$work/out" 2>&1 </dev/null; then
        echo "measure-release: $way $what failed:" >&2
        tail -n 5 "$work/out" >&2
        exit 1
    fi
    cat "$work/t" >>"$file"
}

# warm-up: the JDK way's CDS archive, and one run of each so the page cache holds the files
"$root/twping" -h >/dev/null 2>&1
"$tree/twping" -h >/dev/null 2>&1

for _ in $(seq 1 "$rounds"); do
    for what in help run; do
        if [ "$what" = help ]; then args=(-h); else args=(-c 1 --loopback); fi
        sample release "$what" TWPING_CDS=1 -- "$tree/twping" "${args[@]}"
        sample "release, no AOT" "$what" TWPING_CDS=0 -- "$tree/twping" "${args[@]}"
        sample JDK "$what" TWPING_CDS=1 -- "$root/twping" "${args[@]}"
        rm -f "$root/core/target/Main.jsa"
        sample "JDK, first run" "$what" TWPING_CDS=1 -- "$root/twping" "${args[@]}"
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# min/median/max of column COL of a samples file, scaled
stats() {
    sort -n -k"$2,$2" "$1" | awk -v col="$2" -v scale="$3" -v fmt="$4" '
        { v[NR] = $col * scale }
        END {
            med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf fmt "/" fmt "/" fmt, v[1], med, v[NR]
        }'
}

size=$(stat -c %s "$archive")
echo "Archive $(basename "$archive"): $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }') MiB)," \
    "unpacked $(du -sm "$tree" | cut -f1) MiB (runtime/ $(du -sm "$tree/runtime" | cut -f1) MiB," \
    "lib/twping.aot $(du -sm "$tree/lib/twping.aot" 2>/dev/null | cut -f1 || echo 0) MiB); modules: $(paste -sd, "$tree/runtime/MODULES")."
echo "$rounds rounds on $(nproc) cores; load average before $load_before, after $load_after."
echo
echo "| way | command | wall s min/median/max | max RSS MiB min/median/max |"
echo "|---|---|---|---|"
for what in help run; do
    label="twping -h"
    [ "$what" = run ] && label="twping -c 1 --loopback"
    for way in release "release, no AOT" JDK "JDK, first run"; do
        file="$work/$(printf '%s' "$way-$what" | tr -c 'a-zA-Z0-9' _).samples"
        # shellcheck disable=SC2016  # Markdown backticks
        printf '| %s | `%s` | %s | %s |\n' "$way" "$label" "$(stats "$file" 1 1 %.2f)" "$(stats "$file" 2 0.0009765625 %.1f)"
    done
done
