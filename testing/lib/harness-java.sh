# shellcheck shell=bash
# Shared by the harness scripts that run a main class of testing/ (compare-c.sh, perftest.sh): finds the JDK
# the launcher uses and builds core/target/twping.jar and testing/target/classes when they are missing.
#
#   . "$root/testing/lib/harness-java.sh"
#   harness_java SCRIPT_NAME MAIN_CLASS REBUILD   # sets java_bin, jar, classes; REBUILD=1 forces the build
#
# Exits 1 with one line (no JDK >= 25, or the build failed with its last 30 lines) as the scripts did alone.

# $root: the repository (set by the caller)
# shellcheck disable=SC2154
harness_java() {
    local name=$1 main=$2 rebuild=${3:-0} log java_home
    jar="$root/core/target/twping.jar"
    classes="$root/testing/target/classes"
    if ! java_bin=$("$root/twping" --print-java 2>/dev/null); then
        echo "$name: no JDK >= 25 found (looked at JAVA_HOME, /usr/lib/jvm/*, PATH); install one, e.g. 'apt-get install openjdk-25-jdk' or Temurin 25, or set JAVA_HOME" >&2
        exit 1
    fi
    if [ ! -f "$jar" ] || [ ! -f "$classes/${main//.//}.class" ] || [ "$rebuild" = "1" ]; then
        echo "$name: building core/target/twping.jar and testing/target/classes..." >&2
        log=$(mktemp "${TMPDIR:-/tmp}/${name%.sh}-build.XXXXXX")
        java_home=$(dirname "$(dirname "$(readlink -f "$java_bin")")")
        if ! (cd "$root" && JAVA_HOME="$java_home" ./mvnw -q -B -ntp -DskipTests -pl testing -am package) >"$log" 2>&1; then
            echo "$name: build failed; the last lines of $log:" >&2
            tail -n 30 "$log" >&2
            exit 1
        fi
        rm -f "$log"
    fi
}
