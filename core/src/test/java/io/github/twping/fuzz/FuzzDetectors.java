package io.github.twping.fuzz;

import com.code_intelligence.jazzer.api.BugDetectors;
import java.util.function.BiPredicate;

/**
 * Settings of Jazzer's bug detectors for the fuzz tests. They can only be made once Jazzer's agent is
 * installed, that is from inside a fuzz test invocation (not in {@code @BeforeAll}), and Jazzer resets the
 * network policy when fuzzing starts: each fuzz test makes them at the start of every invocation (a store
 * into an atomic reference).
 */
public final class FuzzDetectors {
    private static final BiPredicate<String, Integer> LOOPBACK = (host, port) -> host.startsWith("127.")
            || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1") || host.equals("localhost");

    private FuzzDetectors() {
    }

    /**
     * The server-side request forgery detector reports every connection a fuzz test does not allow; the
     * control and reflector fuzz tests talk to their own server or peer on loopback only: this allows exactly
     * that.
     */
    public static void allowLoopback() {
        BugDetectors.allowNetworkConnections(LOOPBACK);
    }

    /**
     * The path traversal detector guides inputs towards a file outside the working directory; a path on a
     * command line is the user's choice, so the CLI fuzz test turns that guidance off.
     */
    public static void noPathTraversalTarget() {
        BugDetectors.setFilePathTraversalTarget(() -> null);
    }
}
