#!/usr/bin/env bash
# Side by side: our twping and the C twping, alternating rounds, against the same reflectors.
#
#   testing/compare-c.sh [--rounds N] [--count N] [--schedule SPEC] [--loss-timeout S]
#                        [--reflectors c-twampd,twampd,loopback,stamp,light] [--ours-args 'ARGS'] [--twampd-args 'ARGS']
#                        [--no-floor] [--keep DIR] [--nice N] [--variant LABEL=ARGS]... [--sample-ms N]
#
# --sample-ms N: sample where the client's and server's threads run every N ms (default 0, none: the sampling is work
# on the machine under test, and it inflated our client's forward tails; docs/PERFORMANCE.md).
# stamp and light: `twampd --stamp` / `--light` (with --twampd-args) on 127.0.0.1, measured with our client's
# --stamp / --light (the C client has neither). A --variant's leading NAME=VALUE words are its environment: --variant 'slack=TWPING_JAVA_OPTS=-Dx=1 --spin 0'.
# Environment: TWPING_C, TWAMPD_C: paths of the C twping and twampd (perfSONAR owamp). When unset, that half
# is skipped (said on stderr and in the report): our client is compared with a second run of itself and with
# a C-free ping-pong floor. Every session is a separate process started as a user would (-R -F, under
# /usr/bin/time); the figures are computed exactly from the -R records, the lateness against the schedule
# re-created from the -F header. Markdown on stdout, progress on stderr. Exit 0, 1 when a run failed, 2 on
# bad arguments. Builds core/target/twping.jar and testing/target/classes when missing (COMPARE_REBUILD=1
# forces it). COMPARE_JAVA_OPTS: extra options of the harness JVM (not of the clients: use --ours-args or
# TWPING_JAVA_OPTS for those).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
main_class=io.github.twping.testing.perf.compare.CompareRunner
# shellcheck source-path=SCRIPTDIR source=lib/harness-java.sh
. "$root/testing/lib/harness-java.sh"
harness_java compare-c.sh "$main_class" "${COMPARE_REBUILD:-0}"
[ -x /usr/bin/time ] || echo "compare-c.sh: /usr/bin/time not found (apt-get install time): CPU and RSS columns stay empty" >&2
for v in TWPING_C TWAMPD_C; do
    if [ -n "${!v:-}" ] && [ ! -x "${!v}" ]; then
        echo "compare-c.sh: $v=${!v} is not an executable file" >&2
        exit 2
    fi
done
# shellcheck disable=SC2086
exec "$java_bin" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xms64m ${COMPARE_JAVA_OPTS:-} \
    -Dcompare.root="$root" -cp "$jar:$classes" "$main_class" "$@"
