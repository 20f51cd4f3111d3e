#!/usr/bin/env bash
# Side by side: our twping and the C twping, alternating rounds, against the same reflectors.
#
#   testing/compare-c.sh [--rounds N] [--count N] [--schedule SPEC] [--loss-timeout S]
#                        [--reflectors c-twampd,twampd,loopback,stamp,light] [--ours-args 'ARGS'] [--twampd-args 'ARGS']
#                        [--no-floor] [--keep DIR] [--nice N] [--variant LABEL=ARGS]...
#
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
jar="$root/core/target/twping.jar"
classes="$root/testing/target/classes"
main_class=io.github.twping.testing.perf.compare.CompareRunner

if ! java_bin=$("$root/twping" --print-java 2>/dev/null); then
    echo "compare-c.sh: no JDK >= 25 found (looked at JAVA_HOME, /usr/lib/jvm/*, PATH); install one, e.g. 'apt-get install openjdk-25-jdk' or Temurin 25, or set JAVA_HOME" >&2
    exit 1
fi
if [ ! -f "$jar" ] || [ ! -f "$classes/${main_class//.//}.class" ] || [ "${COMPARE_REBUILD:-0}" = "1" ]; then
    echo "compare-c.sh: building core/target/twping.jar and testing/target/classes..." >&2
    log=$(mktemp "${TMPDIR:-/tmp}/compare-build.XXXXXX")
    java_home=$(dirname "$(dirname "$(readlink -f "$java_bin")")")
    if ! (cd "$root" && JAVA_HOME="$java_home" ./mvnw -q -B -ntp -DskipTests -pl testing -am package) >"$log" 2>&1; then
        echo "compare-c.sh: build failed; the last lines of $log:" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
    rm -f "$log"
fi
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
