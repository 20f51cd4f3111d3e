package io.github.twping.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Smoke pass of the Docker stand: {@code testing/docker/run-stand.sh --smoke} builds the release archive
 * from {@code core/target/twping.jar}, the image from it on a locally made Debian base (debootstrap,
 * cached), and runs our twping against our twampd in containers on the host's loopback, modes O and E
 * (with the C programs too when {@code TWPING_C}/{@code TWAMPD_C} are set).
 *
 * <p>Skipped, with the script's reason, when the stand cannot run on this machine (it exits 77: not
 * root, no Docker engine that answers or starts, no debootstrap, no Debian mirror).
 */
class DockerStandSystemTest {

    /** Exit status of run-stand.sh when the stand cannot run here (the reason is its SKIP line). */
    private static final int CANNOT_RUN_HERE = 77;
    /** The script's own deadline for --smoke is 600 s; this one is only reached if the script hangs. */
    private static final long DEADLINE_SECONDS = TimeUnit.MINUTES.toSeconds(11);
    private static final long GRACE_SECONDS = 60;

    @Test
    @Timeout(value = 13, unit = TimeUnit.MINUTES)
    void shouldRunOurClientAgainstOurServerInContainers() throws IOException, InterruptedException {
        Path root = NetnsStandSystemTest.repositoryRoot();
        Path script = root.resolve("testing/docker/run-stand.sh");
        assumeTrue(Files.isRegularFile(script), "no testing/docker/run-stand.sh under " + root);

        StreamedProcess.Outcome outcome = StreamedProcess.run(
                List.of("bash", script.toString(), "--smoke"), root, DEADLINE_SECONDS, GRACE_SECONDS, System.out);

        assertFalse(outcome.timedOut(), () -> "run-stand.sh --smoke did not finish within "
                + DEADLINE_SECONDS + " s; last output:\n" + outcome.tail(40));
        List<String> skips = outcome.linesStartingWith("SKIP docker-stand:");
        assumeTrue(outcome.exitStatus() != CANNOT_RUN_HERE,
                () -> "the Docker stand cannot run here: " + String.join("; ", skips));

        List<String> failures = outcome.linesStartingWith("FAIL ");
        assertEquals(0, outcome.exitStatus(), () -> "run-stand.sh --smoke exited with " + outcome.exitStatus()
                + "; failed:\n" + String.join("\n", failures) + "\nlast output:\n" + outcome.tail(40));
        assertTrue(failures.isEmpty(), () -> "failed:\n" + String.join("\n", failures));
        List<String> passes = outcome.linesStartingWith("PASS docker-ours-srv-ours-cli-");
        assertTrue(passes.stream().anyMatch(line -> line.startsWith("PASS docker-ours-srv-ours-cli-O:"))
                        && passes.stream().anyMatch(line -> line.startsWith("PASS docker-ours-srv-ours-cli-E:")),
                () -> "our client did not pass against our server in modes O and E; last output:\n"
                        + outcome.tail(40));
        assertTrue(outcome.lines().stream().anyMatch(line -> line.startsWith("| ours | ours | E | 0 | 20 | 0 |")),
                () -> "the side-by-side table has no row for mode E with 20 sent, 0 lost; last output:\n"
                        + outcome.tail(40));
    }
}
