#!/usr/bin/env bash
# Builds the self-contained release archive twping-VERSION-linux-ARCH.tar.gz and SHA256SUMS beside it
# from the runnable jar (core/target/twping.jar), for this machine's architecture or, with --arch, another.
# Run by `./mvnw -B -ntp package -Prelease` (module dist), or by hand after
# `./mvnw -B -ntp -DskipTests -pl core -am package`. See docs/INSTALL.md.
#
# The archive holds one directory twping-VERSION/ with
#   twping, twampd     the repository's launchers; beside runtime/ and lib/ they use those, never Maven
#   runtime/           a jlink runtime of only the JDK modules the code can reach (found with jdeps)
#   lib/twping.jar     the runnable jar
#   lib/twping.aot     the AOT cache (JEP 483/514/515) of a training run made here with that runtime
#   lib/twampd.aot     twampd's own AOT cache (its servers' start-up alone)
#   README.md, docs/, LICENSE, NOTICE, Dockerfile, .dockerignore
#   licenses/          the licences of what the archive bundles, made from the dependencies' metadata
#                      (dist/licenses/CollectLicenses.java over core/target/licenses/third-party.tsv, and
#                      the runtime's legal/ folder)
#
# For another architecture (--arch aarch64 on x86-64), the runtime is jlinked by this JDK's jlink from
# the jmods of Debian's openjdk-25-jdk-headless for that architecture (dist/fetch-debian-jdk.sh, private
# apt configuration under dist/target/debian-jdk); the training run and the check then run under
# qemu-user (binfmt_misc) with Debian's libraries of the same suite, and are skipped, saying so, without it.
#
# Options:
#   --out DIR        where the archive, SHA256SUMS and the staging tree go (default dist/target)
#   --version V      version in the names (default: the project version of the root pom.xml)
#   --no-aot         skip the training runs (no lib/twping.aot, lib/twampd.aot); quicker, for smoke passes
#   --no-verify      skip unpacking the archive and running it once
#   --arch A         x86_64 or aarch64 (default: this machine's, uname -m)
#   --m2-repository D  the Maven local repository holding the dependencies' jars (default ~/.m2/repository)
# Environment: JAVA_HOME (a JDK >= 25 with jlink and jdeps; default: what ./twping --print-java finds),
#   SOURCE_DATE_EPOCH (the time stamp of every file in the archive; default: the HEAD commit's time).
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
out="$root/dist/target"
version=""
aot=1
verify=1
arch=""
m2="$HOME/.m2/repository"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --version) version=$2; shift 2 ;;
        --no-aot) aot=0; shift ;;
        --no-verify) verify=0; shift ;;
        --arch) arch=$2; shift 2 ;;
        --m2-repository) m2=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-release: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

say() { printf '[release %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { echo "build-release: $*" >&2; exit 1; }

jar="$root/core/target/twping.jar"
[ -f "$jar" ] || die "$jar is missing; build it first: ./mvnw -B -ntp -DskipTests -pl core -am package"

if [ -z "$version" ]; then
    # the first <version> after the parent's <artifactId>twping-parent</artifactId>
    version=$(sed -n '/<artifactId>twping-parent<\/artifactId>/,/<\/version>/ s|.*<version>\(.*\)</version>.*|\1|p' \
        "$root/pom.xml" | head -n 1)
    [ -n "$version" ] || die "cannot read the project version from $root/pom.xml (pass --version)"
fi

jdk_major() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null || true; }
jdk=""
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/jlink" ] && [ "$(jdk_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
    jdk=$JAVA_HOME
else
    # (JAVA_HOME may be the older JDK Maven runs on) the launchers' search: /usr/lib/jvm/*, PATH
    java_bin=$(JAVA_HOME="" "$root/twping" --print-java) || die "no JDK >= 25 found (set JAVA_HOME)"
    jdk=$(dirname "$(dirname "$(readlink -f "$java_bin")")")
fi
for tool in java jlink jdeps; do
    [ -x "$jdk/bin/$tool" ] || die "$jdk has no bin/$tool (a full JDK >= 25 is needed, not a runtime)"
done

canonical_arch() {
    case "$1" in
        x86_64 | amd64) echo x86_64 ;;
        aarch64 | arm64) echo aarch64 ;;
        *) return 1 ;;
    esac
}
host_arch=$(canonical_arch "$(uname -m)") || die "unsupported machine $(uname -m)"
arch=$(canonical_arch "${arch:-$host_arch}") || die "unsupported --arch '$arch' (x86_64 or aarch64)"
[ -f "$root/core/target/licenses/third-party.tsv" ] \
    || die "core/target/licenses/third-party.tsv is missing; build the jar with ./mvnw -B -ntp -DskipTests -pl core -am package"

# run_target CMD...: runs a command of the archive's architecture (directly, or under qemu-user).
# start_delay: twping -z for the sessions below: the session's packets are scheduled from its start time,
# and a JVM that is stalled past it (a loaded machine; qemu-user, where the JVM runs tens of times slower)
# sends none, so the start is put off by this many seconds.
run_target() { "$@"; }
start_delay=2
jmods=""
jlink_strip=(--strip-debug)
if [ "$arch" != "$host_arch" ]; then
    [ "$arch" = aarch64 ] || die "cross builds are made for aarch64 only"
    # The runtime of another architecture: its jmods from Debian's JDK of the same feature release
    # (jlink requires that jmods and jlink agree on the version's feature.interim, 25.0).
    debian_dir="$root/dist/target/debian-jdk"
    target_jdk=$("$root/dist/fetch-debian-jdk.sh" --arch arm64 "$debian_dir") || die "could not fetch Debian's arm64 JDK"
    jmods="$target_jdk/jmods"
    # the host's objcopy cannot strip aarch64 libraries (Debian's are stripped already)
    jlink_strip=(--strip-java-debug-attributes)
    if [ -r /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
        run_target() { QEMU_LD_PREFIX="$debian_dir/sysroot-arm64" "$@"; }
        start_delay=60
    else
        say "no qemu-aarch64 binfmt handler (apt-get install qemu-user-static binfmt-support; update-binfmts --enable qemu-aarch64): no training run, no check"
        aot=0
        verify=0
    fi
    say "version $version, linux-$arch, jlink of $jdk over Debian's jmods $jmods ($(cat "$debian_dir/jdk-arm64.version"))"
else
    # The runtime is jlinked from this JDK and the AOT cache is made by running it.
    say "version $version, linux-$arch, JDK $jdk"
fi

name="twping-$version"
archive="$name-linux-$arch.tar.gz"
stage="$out/stage-$arch"
tree="$stage/$name"
rm -rf "$stage" "${out:?}/$archive"
mkdir -p "$tree/lib" "$out"

# 1. The modules: jdeps' class graph of the runnable jar, closed over what the project's own classes
#    reach (the libraries also hold classes, e.g. LDAP or SQL support, that nothing here uses).
say "jdeps: the modules reachable from io.github.twping.*"
graph="$stage/jdeps-classes.txt"
"$jdk/bin/jdeps" --multi-release 25 --ignore-missing-deps -verbose:class "$jar" >"$graph"
# Added by name, since jdeps' class graph cannot see how the code reaches them:
#   java.xml         through method references (invokedynamic, no edge in the graph): the agent's schema
#                    validation (networknt's EnumValidator::new) prints JSON nodes with Jackson 3, whose
#                    OptionalHandlerFactory loads org.w3c.dom.Node in its static initialiser (without it
#                    `twping --agent FILE --check` fails with NoClassDefFoundError; step 6 runs it)
#   jdk.unsupported  sun.misc.Signal, which cli.Signals loads by name (Class.forName) for Ctrl-C/SIGTERM
modules=$({ awk -v prefix=io.github.twping. -v jar="$(basename "$jar")" -f "$root/dist/reachable-modules.awk" "$graph"
    echo java.xml; echo jdk.unsupported; } | sort -u | paste -sd, -)
case ",$modules," in *,java.base,*) ;; *) die "jdeps found no dependency on java.base; see $graph" ;; esac
say "modules: $modules"

# 2. The runtime. No default CDS archive (--generate-cds-archive would add 28 MB): the AOT cache
#    holds the JDK classes the tool uses as well as its own.
say "jlink"
"$jdk/bin/jlink" ${jmods:+--module-path "$jmods"} --add-modules "$modules" "${jlink_strip[@]}" \
    --no-man-pages --no-header-files --output "$tree/runtime"
printf '%s\n' "$modules" | tr , '\n' >"$tree/runtime/MODULES"

# 3. The rest of the tree.
cp "$jar" "$tree/lib/twping.jar"
cp "$root/twping" "$root/twampd" "$tree/"
chmod 755 "$tree/twping" "$tree/twampd"
cp "$root/README.md" "$tree/"
mkdir -p "$tree/docs"
cp "$root"/docs/*.md "$tree/docs/"
cp "$root/LICENSE" "$root/NOTICE" "$tree/"
say "licenses/: from core/target/licenses/third-party.tsv, the jars in $m2 and runtime/legal"
"$jdk/bin/java" "$root/dist/licenses/CollectLicenses.java" --third-party "$root/core/target/licenses/third-party.tsv" \
    --repository "$m2" --apache-text "$root/LICENSE" --jdk-legal "$tree/runtime/legal" --out "$tree/licenses" >&2 \
    || die "licenses/ is incomplete (above)"
cp "$root/dist/docker/Dockerfile" "$tree/Dockerfile"
cp "$root/dist/docker/dockerignore" "$tree/.dockerignore"

# Every file gets one time stamp before the training run: the AOT cache records the jar's size and
# modification time and is used only while they match, so the archive must keep exactly this one.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
find "$tree" -exec touch -h -d "@$epoch" {} +

# 4. The AOT cache: one training run of the packaged launcher (so with its JVM options) on the
#    packaged runtime: a short session against the embedded server, which loads and links the
#    client's, the server's and the reflector's classes.
if [ "$aot" = 1 ]; then
    say "AOT cache: training run (--loopback -c 100 -i 0.005f)"
    train_log="$stage/aot-training.log"
    if ! TWPING_MAIN=io.github.twping.cli.AotTraining TWPING_JAVA_OPTS="-XX:AOTCacheOutput=$tree/lib/twping.aot" \
            run_target timeout 900 "$tree/twping" \
            --loopback -c 100 -i 0.005f -z "$start_delay" >"$train_log" 2>&1 </dev/null; then
        tail -n 20 "$train_log" >&2
        die "the training run failed (log: $train_log)"
    fi
    [ -s "$tree/lib/twping.aot" ] || die "the training run wrote no AOT cache (log: $train_log)"
    rm -f "$tree/lib/twping.aot.config"
    touch -d "@$epoch" "$tree/lib/twping.aot"
    # twampd's own cache: a TWAMP and a STAMP server's start-up alone, without the client's classes (docs/SERVER.md)
    say "AOT cache: the servers' training run"
    if ! TWPING_MAIN=io.github.twping.cli.AotServerTraining TWPING_CDS=0 \
            TWPING_JAVA_OPTS="-Xms16m -Xmn8m -XX:AOTCacheOutput=$tree/lib/twampd.aot" \
            run_target timeout 900 "$tree/twping" >>"$train_log" 2>&1 </dev/null; then
        tail -n 20 "$train_log" >&2
        die "the servers' training run failed (log: $train_log)"
    fi
    [ -s "$tree/lib/twampd.aot" ] || die "the servers' training run wrote no AOT cache (log: $train_log)"
    rm -f "$tree/lib/twampd.aot.config"
    touch -d "@$epoch" "$tree/lib/twampd.aot"
fi

# 5. The archive (sorted, numeric root owner, one time stamp) and its checksum.
say "tar $archive"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$stage" -cf - "$name" \
    | gzip -n -6 >"$out/$archive"
# SHA256SUMS covers every architecture's archive of this version in the output directory
(cd "$out" && sha256sum "$name"-linux-*.tar.gz >SHA256SUMS)

# 6. Check what was packed: unpack it elsewhere and run it once from there, requiring the AOT cache.
if [ "$verify" = 1 ]; then
    check=$(mktemp -d "${TMPDIR:-/tmp}/twping-release-check.XXXXXX")
    trap 'rm -rf "$check"' EXIT
    tar -xzf "$out/$archive" -C "$check"
    opts=""
    [ "$aot" = 1 ] && opts="-XX:AOTMode=on"   # fails instead of running without the cache
    if ! TWPING_JAVA_OPTS="$opts" run_target timeout 600 "$check/$name/twping" --loopback -c 3 -i 0.01f -z "$start_delay" -M \
            >"$stage/verify.out" 2>&1 </dev/null \
            || ! grep -q '^SENT	3$' "$stage/verify.out"; then
        cat "$stage/verify.out" >&2
        die "the unpacked archive does not run (output above)"
    fi
    # twampd maps its own cache (lib/twampd.aot)
    if ! TWPING_JAVA_OPTS="$opts" run_target timeout 600 "$check/$name/twampd" -h >"$stage/verify-twampd.out" 2>&1 </dev/null; then
        cat "$stage/verify-twampd.out" >&2
        die "the unpacked archive's twampd -h fails (output above)"
    fi
    # the agent's configuration check: Jackson 3 and the schema validator, reached through method references
    if ! TWPING_JAVA_OPTS="$opts" run_target timeout 600 "$check/$name/twping" --agent "$root/deploy/debian/agent.yaml" --check \
            >"$stage/verify-agent.out" 2>&1 </dev/null; then
        cat "$stage/verify-agent.out" >&2
        die "the unpacked archive's twping --agent ... --check fails (output above)"
    fi
    say "checked: the unpacked archive runs${opts:+ with its AOT cache (-XX:AOTMode=on)}, twampd -h and twping --agent --check"
fi

size=$(stat -c %s "$out/$archive")
say "$out/$archive: $((size / 1024)) KiB ($(du -sh "$tree" | cut -f1) unpacked)"
cat "$out/SHA256SUMS"
