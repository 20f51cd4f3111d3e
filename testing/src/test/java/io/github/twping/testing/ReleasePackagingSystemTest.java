package io.github.twping.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The heavy release checks, opt-in (they take minutes and need root, qemu-user and a Debian mirror): run
 * only with {@code TWPING_RELEASE_TESTS=1}, over what the documented commands built in dist/target
 * (docs/INSTALL.md): the archives ({@code dist/smoke-archive.sh}: SHA256SUMS, licences, {@code twping -h} and
 * {@code twping --loopback -c 10}, the aarch64 one under qemu-user) and the Debian package
 * ({@code dist/test-deb.sh}: install into a debootstrap root, the installed commands, systemd-analyze
 * verify, removal, lintian). Each skips, saying why, when its input is missing or the script cannot run here
 * (exit 77).
 */
class ReleasePackagingSystemTest {
    private static final int CANNOT_RUN_HERE = 77;
    private static final Path ROOT = NetnsStandSystemTest.repositoryRoot();
    private static final Path TARGET = ROOT.resolve("dist/target");

    private static void assumeOptedIn() {
        assumeTrue("1".equals(System.getenv("TWPING_RELEASE_TESTS")),
                "SKIPPED: the release packaging checks run only with TWPING_RELEASE_TESTS=1 (docs/INSTALL.md)");
    }

    private static Optional<Path> newest(String glob) throws IOException {
        if (!Files.isDirectory(TARGET)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(TARGET)) {
            return files.filter(f -> f.getFileSystem().getPathMatcher("glob:" + glob).matches(f.getFileName()))
                    .max((a, b) -> Long.compare(a.toFile().lastModified(), b.toFile().lastModified()));
        }
    }

    private static void runScript(String script, Path input, long seconds) throws IOException, InterruptedException {
        StreamedProcess.Outcome outcome = StreamedProcess.run(List.of("bash", ROOT.resolve(script).toString(),
                input.toString()), ROOT, seconds, 30, System.out);
        assertFalse(outcome.timedOut(), () -> script + " did not finish within " + seconds + " s:\n" + outcome.tail(30));
        assumeTrue(outcome.exitStatus() != CANNOT_RUN_HERE,
                () -> script + " cannot run here: " + String.join("; ", outcome.linesStartingWith("SKIP ")));
        List<String> failures = outcome.linesStartingWith("FAIL ");
        assertEquals(0, outcome.exitStatus(), () -> script + " exited with " + outcome.exitStatus() + "; failed:\n"
                + String.join("\n", failures) + "\nlast output:\n" + outcome.tail(30));
        assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
        assertFalse(outcome.linesStartingWith("PASS ").isEmpty(), () -> script + " passed nothing:\n" + outcome.tail(30));
    }

    /** Runs SCRIPT over the newest dist/target file matching GLOB, skipping (with HOW_TO_BUILD) without one. */
    private static void runOnNewest(String glob, String howToBuild, String script, long seconds)
            throws IOException, InterruptedException {
        assumeOptedIn();
        Optional<Path> input = newest(glob);
        assumeTrue(input.isPresent(), () -> "SKIPPED: no dist/target/" + glob + " (" + howToBuild + ")");
        runScript(script, input.get(), seconds);
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void shouldRunTheX8664Archive() throws IOException, InterruptedException {
        runOnNewest("twping-*-linux-x86_64.tar.gz", "./mvnw -B -ntp package -Prelease", "dist/smoke-archive.sh", 600);
    }

    @Test
    @Timeout(value = 40, unit = TimeUnit.MINUTES)
    void shouldRunTheAarch64ArchiveUnderQemu() throws IOException, InterruptedException {
        runOnNewest("twping-*-linux-aarch64.tar.gz", "dist/build-release.sh --arch aarch64", "dist/smoke-archive.sh", 2100);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void shouldInstallTheDebianPackageIntoAFreshRoot() throws IOException, InterruptedException {
        runOnNewest("twping-java_*_amd64.deb", "dist/build-deb.sh", "dist/test-deb.sh", 1500);
    }
}
