package io.github.twping.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The checker of the netns stand's wire witness ({@code testing/lib/witness.py}, docs/TESTING.md "The wire
 * witness") on synthetic captures: an honest session passes, and each fault the smoke run must catch (t1 of
 * the previous packet from the TX-timestamp error queue, t4 37 s ahead, t1 from another clock, the t2/t3 of
 * the next reply) fails it. The real captures run in {@link NetnsStandSystemTest}, which needs root. Skips,
 * saying so, when python3 is not installed.
 */
class WitnessSelfTest {

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void checkerPassesAnHonestSessionAndCatchesEachInjectedFault() throws InterruptedException {
        Path script = NetnsStandSystemTest.repositoryRoot().resolve("testing/lib/witness.py");
        StreamedProcess.Outcome outcome;
        try {
            outcome = StreamedProcess.run(List.of("python3", script.toString(), "self-test"), script.getParent(),
                    90, 5, new PrintStream(PrintStream.nullOutputStream()));
        } catch (IOException e) {
            assumeTrue(false, "python3 cannot be started (" + e.getMessage() + "); the witness checker cannot run");
            return;
        }
        assertFalse(outcome.timedOut(), () -> "witness.py self-test did not finish: " + outcome.tail(10));
        assertEquals(0, outcome.exitStatus(), () -> outcome.tail(10));
        assertEquals("witness self-test: honest session passes; 4 injected faults detected",
                outcome.lines().get(outcome.lines().size() - 1));
    }
}
