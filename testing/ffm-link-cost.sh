#!/usr/bin/env bash
# What linking FFM downcalls costs a fresh JVM, apart from everything else twping does (docs/notes/2026-12-05-ffm-link.md).
#
#   testing/ffm-link-cost.sh [--rounds N] [--aot]
#
# Compiles testing/lib/ffmlink/FfmLinkCost.java into a temporary directory and runs it, rounds alternating, in the
# four modes: `none` (the first link alone, which initialises the linker), `distinct` (then the 12 further
# descriptors twping -c 1 linked before December 2026, each a class the JDK generates), `same` (12 further links of
# the first descriptor: cache hits), and `syscall` (what the x86-64 client links since: glibc's syscall(2) with six
# longs and errno capture first, then clock_gettime; docs/notes/2026-12-05-syscall-shape.md). JVM flags as the
# launcher's C1 runs. With --aot, a JDK 25 AOT cache trained on a
# `distinct` run is used, and the script also counts the classes still generated at run time (LambdaForm and
# DowncallStub, -Xlog:class+load) to show whether the cache holds them. Prints one line per run: mode, user and
# the program's own timing line (mode, wall ms of each part), then user and system CPU seconds and max RSS kB; the load
# average at the start and the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=3 aot=0
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --aot) aot=1; shift ;;
        -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "ffm-link-cost.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $rounds in '' | *[!0-9]* | 0) echo "ffm-link-cost.sh: --rounds wants a positive integer" >&2; exit 2 ;; esac
java_bin=$("$root/twping" --print-java) || exit 1
javac_bin="$(dirname "$java_bin")/javac"
[ -x "$javac_bin" ] || { echo "ffm-link-cost.sh: no javac beside $java_bin (a JDK, not a runtime, is needed)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ffm-link-cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/classes"
"$javac_bin" -d "$work/classes" "$root/testing/lib/ffmlink/FfmLinkCost.java"
"$(dirname "$java_bin")/jar" cf "$work/link.jar" -C "$work/classes" .   # an AOT cache takes jars only
opts=(--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -cp "$work/link.jar")
if [ "$aot" = 1 ]; then
    "$java_bin" "${opts[@]}" -XX:AOTCacheOutput="$work/link.aot" -Xlog:aot=off -Xlog:cds=off FfmLinkCost distinct >/dev/null 2>&1
    opts+=(-XX:AOTCache="$work/link.aot" -Xlog:aot=off -Xlog:cds=off)
fi
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq 1 "$rounds"); do
    for mode in none distinct same syscall; do
        line=$( { /usr/bin/time -f '%U %S %M' "$java_bin" "${opts[@]}" FfmLinkCost "$mode"; } 2>&1 | tr '\n' ' ')
        echo "$line"
    done
done
if [ "$aot" = 1 ]; then
    generated=$("$java_bin" "${opts[@]}" -Xlog:class+load=info:stdout FfmLinkCost distinct 2>/dev/null \
        | grep -c 'LambdaForm\$\|DowncallStub' || true)
    echo "classes generated at run time with the AOT cache (distinct): $generated"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
