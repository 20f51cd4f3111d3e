#!/usr/bin/env bash
# The beginning of a session against the rest of it: RTT and reflector processing of the first 250 packets of
# `twping --loopback -c 2000 -i 0.002f -L 1 -R` against packets 1000-1999 of the same run, three runs.
#
#   testing/session-start.sh [CHECKOUT]     CHECKOUT: the root of a built checkout (default: this one), e.g. an
#                                           older commit in a git worktree, to compare before and after
#
# Prints one line per run: p50 / p90 / max of the RTT and of the processing time (µs, exact, from -R). Needs
# python3. Exit 0, 1 when a run failed.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -x "$root/twping" ] || { echo "session-start.sh: no twping launcher in $root" >&2; exit 2; }
out=$(mktemp "${TMPDIR:-/tmp}/session-start.XXXXXX")
trap 'rm -f "$out"' EXIT
for run in 1 2 3; do
    "$root/twping" --loopback -c 2000 -i 0.002f -L 1 -R 2>/dev/null >"$out" || { echo "session-start.sh: run $run failed" >&2; exit 1; }
    python3 - "$out" "run $run" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isdigit()]
rows = [r for r in rows if len(r) >= 16]
def us(ntp):
    return ntp / 4294967296 * 1e6
def stats(sel):
    if not sel:
        return "no records"
    rtt = sorted(us((int(r[12]) - int(r[1])) - (int(r[9]) - int(r[4]))) for r in sel)
    proc = sorted(us(int(r[9]) - int(r[4])) for r in sel)
    q = lambda a, p: a[min(len(a) - 1, int(p * len(a)))]
    return "RTT p50 %.1f p90 %.1f max %.0f | processing p50 %.1f p90 %.1f max %.0f" % (
        q(rtt, .5), q(rtt, .9), rtt[-1], q(proc, .5), q(proc, .9), proc[-1])
first = [r for r in rows if int(r[0]) < 250]
rest = [r for r in rows if 1000 <= int(r[0]) < 2000]
print(sys.argv[2], "| first 250:", stats(first), "|| 1000-1999:", stats(rest))
PY
done
