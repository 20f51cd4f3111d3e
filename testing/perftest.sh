#!/usr/bin/env bash
# End-to-end loopback performance test: our client engine against our embedded server, in one JVM.
#
#   testing/perftest.sh [loopback|highrate] [options]
#
#   loopback (default)  RTT with kernel timestamps (kernel), FFM user-space stamps (user) and the NIO
#                       fallback (nio), plus a plain UDP ping-pong baseline, at 1000 and 10000 packets/s
#   highrate            one kernel-stamped session, 100000 packets at 20000 packets/s
#
# Options: --rates R1,R2 | --rate R, --seconds S (packets = rate x S; loopback default 3), --count N,
#          --clients kernel,user,nio, --spin MICROS (default 100, twping's fixed window before --spin auto became its default), --loss-timeout S (1),
#          --deadline S (per run; default 2 x sending time + 30 s), --no-baseline.
# Prints Markdown tables on stdout, one diagnostic line per run on stderr. Exit status 0, 1 when a run
# failed or hit its deadline, 2 on bad arguments.
#
# Builds core/target/twping.jar and testing/target/classes when missing (or with PERFTEST_REBUILD=1),
# finds the JDK exactly like ./twping (./twping --print-java) and runs
#   java --enable-native-access=ALL-UNNAMED <twping's JVM flags> -cp core/target/twping.jar:testing/target/classes \
#        io.github.twping.testing.perf.LoopbackRttRunner "$@"
# Environment: PERFTEST_JAVA_OPTS, extra JVM options (replace nothing; appended after the defaults).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
main_class=io.github.twping.testing.perf.LoopbackRttRunner
# shellcheck source-path=SCRIPTDIR source=lib/harness-java.sh
. "$root/testing/lib/harness-java.sh"
harness_java perftest.sh "$main_class" "${PERFTEST_REBUILD:-0}"

# The same collector and heap as the ./twping launcher, so the numbers are those of twping's JVM.
jvm_opts=(--enable-native-access=ALL-UNNAMED -XX:CompileCommand=quiet
    -XX:CompileCommand=inline,jdk.internal.foreign.AbstractMemorySegmentImpl::asSlice -XX:+UseSerialGC -Xms128m -Xmn96m -Xmx512m)
# shellcheck disable=SC2086
exec "$java_bin" "${jvm_opts[@]}" ${PERFTEST_JAVA_OPTS:-} -cp "$jar:$classes" "$main_class" "$@"
