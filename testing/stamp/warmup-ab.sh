#!/usr/bin/env bash
# Before/after comparison of two builds with testing/stamp/stamp-perf.sh (docs/STAMP.md, "Before and after the
# warm-up"): alternately puts each jar in place of core/target/twping.jar and runs the script, so that both see
# the same load; the original jar is put back at the end.
#
#   testing/stamp/warmup-ab.sh --before JAR --after JAR [--pairs N] [stamp-perf.sh arguments...]
#
# Runs with TWPING_CDS=0 TWPING_AOT=0 (no archive made for one jar is used with the other). Prints, per run, a
# "== before|after HH:MM:SS load ..." line and stamp-perf.sh's tables. Exit 0, 1 when a run failed, 2 on bad
# arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
before=""
after=""
pairs=2
while [ $# -gt 0 ]; do
    case $1 in
        --before) before=$2; shift 2 ;;
        --after) after=$2; shift 2 ;;
        --pairs) pairs=$2; shift 2 ;;
        *) break ;;
    esac
done
case $pairs in ''|*[!0-9]*) echo "warmup-ab.sh: --pairs takes an integer" >&2; exit 2 ;; esac
if [ ! -f "$before" ] || [ ! -f "$after" ]; then
    echo "warmup-ab.sh: --before JAR and --after JAR are required" >&2
    exit 2
fi
jar="$root/core/target/twping.jar"
saved=$(mktemp "${TMPDIR:-/tmp}/warmup-ab.XXXXXX")
[ -f "$jar" ] && cp "$jar" "$saved"
# shellcheck disable=SC2317  # run by the EXIT trap
restore() {
    if [ -s "$saved" ]; then cp "$saved" "$jar"; touch "$jar"; fi
    rm -f "$saved"
}
trap restore EXIT
status=0
for _ in $(seq 1 "$pairs"); do
    for v in before after; do
        if [ $v = before ]; then cp "$before" "$jar"; else cp "$after" "$jar"; fi
        touch "$jar"
        echo "== $v $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
        TWPING_CDS=0 TWPING_AOT=0 "$root/testing/stamp/stamp-perf.sh" "$@" 2>/dev/null || status=1
    done
done
exit $status
