package io.github.twping.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import java.util.Arrays;

/**
 * The CI smoke pass of the benchmark suite (issue "JMH suites and performance regression tracking"): runs
 * every benchmark in {@code benchmarks.jar} once, briefly ({@code jmh/run-benchmarks.sh --smoke}), which
 * also feeds the result to the comparison tool against itself. Fails when a benchmark throws, JMH fails
 * or the comparison tool cannot read the result; never on timing. Runs in the integration-test phase,
 * after the benchmarks jar has been built.
 */
class BenchmarkSmokeIT {
    private static final long DEADLINE_MINUTES = 15;

    @Test
    @Timeout(value = DEADLINE_MINUTES + 2, unit = TimeUnit.MINUTES)
    void shouldRunEveryBenchmarkAndCompareTheResultWithItself() throws IOException, InterruptedException {
        Path jmhDir = Path.of("").toAbsolutePath();
        Path script = jmhDir.resolve("run-benchmarks.sh");
        assertTrue(Files.isExecutable(script), script + " must exist and be executable");
        assertTrue(Files.isRegularFile(jmhDir.resolve("target/benchmarks.jar")), "benchmarks.jar must be built");
        Path result = jmhDir.resolve("target/jmh-smoke.json");
        Path log = jmhDir.resolve("target/jmh-smoke.log");
        Process p = new ProcessBuilder(List.of("bash", script.toString(), "--smoke", "--out", result.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(DEADLINE_MINUTES, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("smoke pass did not finish within " + DEADLINE_MINUTES + " min; see " + log);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "run-benchmarks.sh --smoke failed:\n" + tail(output));
        assertTrue(Files.size(result) > 0, "no JMH result written");
        System.out.println(tail(output));
    }

    private static String tail(String text) {
        String[] lines = text.split("\n");
        int from = Math.max(0, lines.length - 40);
        return String.join("\n", Arrays.copyOfRange(lines, from, lines.length));
    }
}
