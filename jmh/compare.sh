#!/usr/bin/env bash
# Compares two JMH JSON results (jmh/run-benchmarks.sh writes them) and fails on a regression.
#
#   jmh/compare.sh BASELINE.json CURRENT.json [--threshold PCT]
#
# Prints a Markdown table. Exit status: 0 no regression, 1 bad arguments / malformed input / no JDK 25,
# 2 a benchmark regressed (confidence intervals apart AND worse by more than PCT %, default 10; or
# gc.alloc.rate.norm grew). See docs/PERFORMANCE.md.
set -euo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
jmh_dir=$(dirname "$self")
root=$(dirname "$jmh_dir")
jar="$jmh_dir/target/benchmarks.jar"

# The JDK >= 25 is found exactly as the ./twping launcher finds it (JAVA_HOME, /usr/lib/jvm/*, PATH).
if [ ! -x "$root/twping" ]; then
    echo "compare.sh: $root/twping is missing (the launcher that finds the JDK); restore it from git" >&2
    exit 1
fi
if ! java_bin=$("$root/twping" --print-java 2>/dev/null); then
    echo "compare.sh: no JDK >= 25 found (looked at JAVA_HOME, /usr/lib/jvm/*, PATH); install one, e.g. 'apt-get install openjdk-25-jdk' or Temurin 25, or set JAVA_HOME" >&2
    exit 1
fi
if [ ! -f "$jar" ]; then
    echo "compare.sh: $jar is missing; build it with: ./mvnw -q -B -pl jmh -am package -DskipTests" >&2
    exit 1
fi
exec "$java_bin" -cp "$jar" io.github.twping.jmh.compare.JmhCompare "$@"
