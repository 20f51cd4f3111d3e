package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live progress line on a real terminal: twping runs in a tmux pane (a private tmux server), typed with
 * {@code send-keys}; {@code capture-pane} shows the line while the test runs, and it is gone afterwards.
 * stdout goes to a file, which must hold the C summary and nothing of the progress line. Skipped, saying
 * so, when tmux is not installed (.ci/run installs it).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProgressTmuxTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(90);

    @TempDir
    Path dir;
    private String socket;

    @BeforeEach
    void startTmux() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux not installed: skipping the progress test");
        socket = "twping-progress-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        tmux("new-session", "-d", "-s", "t", "-x", "200", "-y", "50", "sh");
    }

    @AfterEach
    void stopTmux() throws Exception {
        if (socket != null) {
            tmux("kill-server");
        }
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tmux hung: " + cmd);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /**
     * The line typed into the pane: a script holding the command, since the command itself (the test class
     * path) can exceed the terminal's 4,096-byte input line, which would leave the shell waiting for the
     * closing quote.
     */
    private String commandLine(String extra, Path stdout, Path done) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path script = Files.createTempFile(dir, "run", ".sh");
        Files.writeString(script, "'" + java + "' --enable-native-access=ALL-UNNAMED -cp '"
                + System.getProperty("java.class.path") + "' io.github.twping.cli.Main --loopback -c 60 -i 0.05f -L 2 "
                + extra + " > '" + stdout + "'; echo $? > '" + done + "'\n");
        return "sh '" + script + "'";
    }

    /** Types the command, then captures the pane until the run ends; returns every capture. */
    private List<String> runInPane(String extra, Path stdout, Path done) throws Exception {
        tmux("send-keys", "-t", "t", commandLine(extra, stdout, done), "Enter");
        List<String> captures = new ArrayList<>();
        long end = System.nanoTime() + DEADLINE_NS;
        while (!Files.exists(done) || Files.size(done) == 0) {
            assertTrue(System.nanoTime() < end, "twping did not finish in the pane: " + tmux("capture-pane", "-p", "-t", "t"));
            captures.add(tmux("capture-pane", "-p", "-t", "t"));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        captures.add(tmux("capture-pane", "-p", "-t", "t"));
        return captures;
    }

    @Test
    void progressLineIsDrawnOnTheTerminalAndNeverReachesStdout() throws Exception {
        Path stdout = dir.resolve("out.txt");
        Path done = dir.resolve("done.txt");
        List<String> captures = runInPane("", stdout, done);
        assertEquals("0", Files.readString(done).strip());
        boolean seen = captures.stream().anyMatch(c -> c.contains("twping: ") && c.contains(" s  sent ")
                && c.contains("  received ") && c.contains("  lost ") && c.contains("rtt p50 "));
        assertTrue(seen, "a progress line in one of " + captures.size() + " captures; last: " + captures.getLast());
        assertFalse(captures.getLast().contains("rtt p50 "), "the line is cleared at the end: " + captures.getLast());
        String out = Files.readString(stdout);
        assertTrue(out.contains(" sent, ") && out.contains("--- twping statistics from"), out);
        assertFalse(out.contains("rtt p50") || out.contains("\r") || out.contains("\033"), out);
    }

    @Test
    void noProgressKeepsTheTerminalQuiet() throws Exception {
        Path stdout = dir.resolve("out.txt");
        Path done = dir.resolve("done.txt");
        List<String> captures = runInPane("--no-progress", stdout, done);
        assertEquals("0", Files.readString(done).strip());
        assertTrue(captures.size() > 3, "captured while it ran");
        assertTrue(captures.stream().noneMatch(c -> c.contains("rtt p50 ")), captures.getLast());
        assertTrue(Files.readString(stdout).contains(" sent, "));
    }
}
