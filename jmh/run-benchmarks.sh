#!/usr/bin/env bash
# Runs the JMH suite from jmh/target/benchmarks.jar on a JDK >= 25 and writes a JMH JSON result.
#
#   jmh/run-benchmarks.sh [--smoke] [--out FILE] [JMH args...]     e.g. 'Pacing' or '-p rate=1000 Pacing'
#   jmh/run-benchmarks.sh --pacing-accuracy [PacingAccuracyRunner args...]
#
# Always passes -rf json -rff FILE (default jmh/target/jmh-result.json), -prof gc (gc.alloc.rate.norm,
# which jmh/compare.sh checks) and --enable-native-access=ALL-UNNAMED to the host and forked JVMs.
# --smoke: one fork, no warm-up, one 200 ms measurement iteration; proves every selected benchmark
# still runs, then compares the result with itself through jmh/compare.sh (must exit 0). Timing never
# fails the smoke pass; a benchmark that throws does (-foe true). It ignores JMH's machine-wide lock
# (/tmp/jmh.lock): a smoke pass measures nothing, and two builds on one machine (CI runners, a developer's
# two checkouts) would otherwise fail each other's.
# Environment: JMH_JAVA_OPTS, extra options for the host JVM (e.g. -Djmh.ignoreLock=true when another
# JMH run holds /tmp/jmh.lock on a shared machine; results then disturb each other).
# --pacing-accuracy: runs io.github.twping.jmh.pacing.PacingAccuracyRunner (Markdown table of lateness
# percentiles and CPU per pacing strategy) instead of JMH.
set -euo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
jmh_dir=$(dirname "$self")
root=$(dirname "$jmh_dir")
jar="$jmh_dir/target/benchmarks.jar"
out="$jmh_dir/target/jmh-result.json"
smoke=0
pacing=0
jmh_args=()

while [ $# -gt 0 ]; do
    case "$1" in
        --smoke) smoke=1 ;;
        --pacing-accuracy) pacing=1; shift; break ;;
        --out)
            [ $# -ge 2 ] || { echo "run-benchmarks.sh: --out needs a file name" >&2; exit 1; }
            out=$2; shift ;;
        --out=*) out=${1#--out=} ;;
        -h|--help)
            awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$self"
            exit 0 ;;
        *) jmh_args+=("$1") ;;
    esac
    shift
done

# The JDK >= 25 is found exactly as the ./twping launcher finds it (JAVA_HOME, /usr/lib/jvm/*, PATH).
if [ ! -x "$root/twping" ]; then
    echo "run-benchmarks.sh: $root/twping is missing (the launcher that finds the JDK); restore it from git" >&2
    exit 1
fi
if ! java_bin=$("$root/twping" --print-java 2>/dev/null); then
    echo "run-benchmarks.sh: no JDK >= 25 found (looked at JAVA_HOME, /usr/lib/jvm/*, PATH); install one, e.g. 'apt-get install openjdk-25-jdk' or Temurin 25, or set JAVA_HOME" >&2
    exit 1
fi
if [ ! -f "$jar" ]; then
    echo "run-benchmarks.sh: $jar is missing; build it with: ./mvnw -q -B -pl jmh -am package -DskipTests" >&2
    exit 1
fi

native=--enable-native-access=ALL-UNNAMED
if [ "$pacing" = 1 ]; then
    exec "$java_bin" "$native" -cp "$jar" io.github.twping.jmh.pacing.PacingAccuracyRunner "$@"
fi

# JMH rejects a single-valued option given twice, so a default is added only if the caller did not give it.
has_option() {
    local arg
    for arg in ${jmh_args[@]+"${jmh_args[@]}"}; do
        [ "$arg" = "$1" ] && return 0
    done
    return 1
}
if has_option -rf || has_option -rff; then
    echo "run-benchmarks.sh: the result is always JMH JSON; use --out FILE instead of -rf/-rff" >&2
    exit 1
fi
run_args=(-jvmArgsAppend "$native" -rf json -rff "$out")
has_option -foe || run_args+=(-foe true)
# -prof may repeat; add gc unless the caller asked for it.
prof_gc=0
prev=
for arg in ${jmh_args[@]+"${jmh_args[@]}"}; do
    [ "$prev" = "-prof" ] && [ "${arg%%:*}" = "gc" ] && prof_gc=1
    prev=$arg
done
[ "$prof_gc" = 1 ] || run_args+=(-prof gc)
host_opts=()
if [ "$smoke" = 1 ]; then
    host_opts+=(-Djmh.ignoreLock=true)
    has_option -f || run_args+=(-f 1)
    has_option -wi || run_args+=(-wi 0)
    has_option -i || run_args+=(-i 1)
    has_option -r || run_args+=(-r 200ms)
fi
mkdir -p "$(dirname "$out")"
rm -f "$out"    # a failed run must not leave the previous result looking current
# shellcheck disable=SC2086
"$java_bin" "$native" ${host_opts[@]+"${host_opts[@]}"} ${JMH_JAVA_OPTS:-} -jar "$jar" "${run_args[@]}" ${jmh_args[@]+"${jmh_args[@]}"}
echo "run-benchmarks.sh: JMH JSON result in $out" >&2

if [ "$smoke" = 1 ]; then
    # Proves the comparison tool reads this JMH's output; a result compared with itself cannot regress.
    if ! "$jmh_dir/compare.sh" "$out" "$out" >/dev/null; then
        echo "run-benchmarks.sh: smoke: jmh/compare.sh failed on its own result $out" >&2
        exit 1
    fi
    echo "run-benchmarks.sh: smoke: every selected benchmark ran; jmh/compare.sh read the result" >&2
fi
