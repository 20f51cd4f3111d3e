package io.github.twping.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.io.File;

/**
 * Runs an external command for a system test with a deadline, streaming its merged stdout and
 * stderr line by line to a print stream while keeping every line for the assertions.
 *
 * <p>On the deadline the command gets SIGTERM first (so a script can tear down what it built),
 * then, after a grace period, SIGKILL for it and its descendants.
 */
final class StreamedProcess {

    /** What a finished (or stopped) run left: exit status, output lines, whether it timed out. */
    record Outcome(int exitStatus, List<String> lines, boolean timedOut) {

        /** Lines starting with the given prefix, e.g. {@code "FAIL "}. */
        List<String> linesStartingWith(String prefix) {
            return lines.stream().filter(line -> line.startsWith(prefix)).toList();
        }

        /** The last {@code count} lines, joined with newlines. */
        String tail(int count) {
            return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        }
    }

    private StreamedProcess() {
    }

    /**
     * Runs {@code command} in {@code directory} and waits at most {@code deadlineSeconds}.
     *
     * @param graceSeconds how long to wait after SIGTERM before killing the process tree
     */
    static Outcome run(List<String> command, Path directory, long deadlineSeconds, long graceSeconds,
                       PrintStream echo) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Thread pump = Thread.ofPlatform().name("stand-output").daemon().start(() -> {
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    lines.add(line);
                    echo.println(line);
                }
            } catch (IOException e) {
                lines.add("(output stream closed: " + e.getMessage() + ")");
            }
        });
        boolean timedOut = !process.waitFor(deadlineSeconds, TimeUnit.SECONDS);
        if (timedOut) {
            echo.println("(deadline of " + deadlineSeconds + " s passed: sending SIGTERM)");
            process.destroy();
            if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(graceSeconds, TimeUnit.SECONDS);
            }
        }
        pump.join(TimeUnit.SECONDS.toMillis(graceSeconds));
        int status = process.isAlive() ? -1 : process.exitValue();
        synchronized (lines) {
            return new Outcome(status, List.copyOf(lines), timedOut);
        }
    }
}
