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
 * End-to-end check of our twping and twampd across a routed path of network namespaces:
 * runs {@code testing/netns-stand.sh --smoke} (clean path, 5 % loss, DSCP EF counted on the
 * wire, IPv6, one encrypted session, the wire witness of {@code testing/lib/witness.sh}: every timestamp
 * against tcpdump captures) and fails if any scenario fails.
 *
 * <p>Skipped only where the stand cannot exist: not root, or no {@code ip netns}. The script
 * uses the launchers {@code ./twping} and {@code ./twampd} at the repository root (they build
 * {@code core/target/twping.jar} if it is missing; in a reactor build {@code core} is packaged
 * before this module's tests run).
 */
class NetnsStandSystemTest {

    /** The smoke subset takes about a minute; the deadline leaves room for a slow machine. */
    private static final long DEADLINE_SECONDS = TimeUnit.MINUTES.toSeconds(8);
    private static final long GRACE_SECONDS = 30;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void shouldPassTheSmokeScenariosAcrossARoutedPath() throws IOException, InterruptedException {
        assumeTrue(isRoot(), "the namespace stand needs root (network namespaces, nftables); uid is not 0");
        assumeTrue(ipNetnsWorks(), "'ip netns' is not available (no iproute2 'ip' command or no netns support)");
        Path root = repositoryRoot();

        StreamedProcess.Outcome outcome = StreamedProcess.run(
                List.of("bash", root.resolve("testing/netns-stand.sh").toString(), "--smoke"),
                root, DEADLINE_SECONDS, GRACE_SECONDS, System.out);

        List<String> failures = outcome.linesStartingWith("FAIL ");
        assertFalse(outcome.timedOut(), () -> "netns-stand.sh --smoke did not finish within "
                + DEADLINE_SECONDS + " s; last output:\n" + outcome.tail(40));
        assertEquals(0, outcome.exitStatus(), () -> "netns-stand.sh --smoke exited with "
                + outcome.exitStatus() + "; failed scenarios:\n" + String.join("\n", failures)
                + "\nlast output:\n" + outcome.tail(40));
        assertTrue(failures.isEmpty(), () -> "failed scenarios:\n" + String.join("\n", failures));
        assertFalse(outcome.linesStartingWith("PASS ").isEmpty(),
                () -> "no scenario passed; last output:\n" + outcome.tail(40));
    }

    /** The directory holding the launchers and the stand, searched upwards from the working directory. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path candidate = dir; candidate != null; candidate = candidate.getParent()) {
            if (Files.isRegularFile(candidate.resolve("testing/netns-stand.sh"))
                    && Files.isRegularFile(candidate.resolve("twping"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no repository root (with twping and testing/netns-stand.sh) above " + dir);
    }

    /** Effective uid 0, read from /proc/self/status ("Uid: real effective saved fs"). */
    private static boolean isRoot() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Uid:")) {
                String[] fields = line.substring(4).trim().split("\\s+");
                return fields.length > 1 && fields[1].equals("0");
            }
        }
        return false;
    }

    private static boolean ipNetnsWorks() throws InterruptedException {
        try {
            Process process = new ProcessBuilder("ip", "netns", "list")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return false;
            }
            return process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }
}
