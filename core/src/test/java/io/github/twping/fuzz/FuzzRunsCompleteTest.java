package io.github.twping.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The build's check after the fuzz executions (core's surefire execution {@code fuzz-check}, which runs last):
 * every fuzz test class a fuzz JVM of this Maven invocation started ({@link FuzzRunRecorder}) reached the end
 * of its class with at least one test finished. A fuzz JVM that ended early (a bug detector firing outside a
 * fuzzed input, a crash, an exit) leaves a class started and not finished, and this test fails naming it.
 */
@Tag("fuzz-check")
class FuzzRunsCompleteTest {
    @Test
    void shouldHaveFinishedEveryFuzzClassThatStarted() throws IOException {
        String configured = System.getProperty(FuzzRunRecorder.DIRECTORY_PROPERTY);
        assumeTrue(configured != null && !configured.isBlank(),
                "no " + FuzzRunRecorder.DIRECTORY_PROPERTY + ": not run by core's fuzz-check execution");
        Path directory = Path.of(configured);
        if (!Files.isDirectory(directory)) {
            return;                                 // no fuzz class selected in this invocation (-Dtest)
        }
        List<String> problems = new ArrayList<>();
        int started = 0;
        try (Stream<Path> files = Files.list(directory)) {
            for (Path p : files.sorted().toList()) {
                String name = p.getFileName().toString();
                if (!name.endsWith(FuzzRunRecorder.STARTED)) {
                    continue;
                }
                started++;
                String cls = name.substring(0, name.length() - FuzzRunRecorder.STARTED.length());
                Path finished = directory.resolve(cls + FuzzRunRecorder.FINISHED);
                if (!Files.exists(finished)) {
                    problems.add(cls + ": its fuzz JVM ended before the class finished (no test report: a bug"
                            + " detector outside a fuzzed input, a crash or an exit; see that execution's output)");
                    continue;
                }
                String[] f = Files.readString(finished, StandardCharsets.US_ASCII).trim().split(" ");
                if (f.length != 3 || Integer.parseInt(f[0]) < 1) {
                    problems.add(cls + ": finished with no test run (" + String.join(" ", f) + ")");
                }
            }
        }
        assertTrue(problems.isEmpty(), started + " fuzz classes started in " + directory + ":\n"
                + String.join("\n", problems));
    }
}
