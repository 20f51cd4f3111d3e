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
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live progress line on a real terminal: twping runs in a tmux pane (a private tmux server), typed with
 * {@code send-keys}; {@code capture-pane} shows the line while the test runs, and it is gone afterwards.
 * In a 200-column pane stdout goes to a file, which must hold the C summary and nothing of the progress
 * line; at 80x24 and 40x10 stdout shares the terminal, the line must fit without wrapping and be erased
 * before the summary. Skipped, saying
 * so, when tmux is not installed (.ci/run installs it).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProgressTmuxTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(90);

    @TempDir
    Path dir;
    private String socket;

    /** A progress line of any width (every form has the elapsed/expected time and the loss count). */
    private static final Pattern PROGRESS = Pattern.compile("\\d+\\.\\d/\\d+\\.\\d ?s .*lost \\d+");

    @BeforeEach
    void checkTmux() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/tmux")), "tmux not installed: skipping the progress test");
    }

    private void startTmux(int columns, int rows) throws Exception {
        socket = "twping-progress-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        tmux("new-session", "-d", "-s", "t", "-x", Integer.toString(columns), "-y", Integer.toString(rows), "sh");
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
                + System.getProperty("java.class.path") + "' io.github.twping.cli.Main --loopback -c 60 -i 0.05f -L 5 "
                + extra + (stdout == null ? "" : " > '" + stdout + "'") + "; echo $? > '" + done + "'\n");
        return "sh '" + script + "'";
    }

    /** Types the command, then captures the pane until the run ends; returns every capture. */
    private List<String> runInPane(String extra, Path stdout, Path done) throws Exception {
        tmux("send-keys", "-t", "t", commandLine(extra, stdout, done), "Enter");
        List<String> captures = new ArrayList<>();
        long end = System.nanoTime() + DEADLINE_NS;
        while (!Files.exists(done) || Files.size(done) == 0) {
            assertTrue(System.nanoTime() < end, "twping did not finish in the pane: " + tmux("capture-pane", "-p", "-t", "t"));
            captures.add(tmux("capture-pane", "-p", "-J", "-t", "t"));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        captures.add(tmux("capture-pane", "-p", "-J", "-t", "t"));
        return captures;
    }

    private static List<String> progressRows(String capture) {
        return capture.lines().filter(l -> PROGRESS.matcher(l).find()).toList();
    }

    /**
     * At {@code columns} x {@code rows}, stdout on the terminal too: the line never wraps (joined rows, -J,
     * would show a wrapped line as one row wider than the pane, and the old lines a redraw leaves behind as
     * several rows), and once the run is over no trace of it is left anywhere in the pane's history: it was
     * erased before the summary.
     */
    private void fitsAndIsErased(int columns, int rows, String... expected) throws Exception {
        startTmux(columns, rows);
        Path done = dir.resolve("done.txt");
        List<String> captures = runInPane("", null, done);
        assertEquals("0", Files.readString(done).strip());
        List<String> seen = new ArrayList<>();
        for (String capture : captures) {
            List<String> progress = progressRows(capture);
            assertTrue(progress.size() <= 1, "one progress row at most: " + capture);
            for (String row : progress) {
                assertTrue(row.length() < columns, "the line leaves the last column free: [" + row + "]");
                seen.add(row);
            }
        }
        assertFalse(seen.isEmpty(), "a progress line in one of " + captures.size() + " captures; last: "
                + captures.getLast());
        for (String part : expected) {
            assertTrue(seen.stream().anyMatch(r -> r.contains(part)), part + " in " + seen);
        }
        String history = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t");
        assertEquals(List.of(), progressRows(history), "no progress line left: " + history);
        assertTrue(history.contains("--- twping statistics from") && history.contains("--- exact statistics"), history);
        Files.writeString(dir.resolve("progress-" + columns + ".txt"), String.join("\n", seen));
    }

    @Test
    void progressLineFitsEightyColumnsAndIsErasedBeforeTheSummary() throws Exception {
        fitsAndIsErased(80, 24, "twping: ", "  sent ", "  lost ", "p50 ", "p99 ", " ms");
    }

    @Test
    void progressLineFitsFortyColumnsAndIsErasedBeforeTheSummary() throws Exception {
        fitsAndIsErased(40, 10, "s sent ", " lost ", " p50 ");
    }

    @Test
    void progressLineIsDrawnOnTheTerminalAndNeverReachesStdout() throws Exception {
        startTmux(200, 50);
        Path stdout = dir.resolve("out.txt");
        Path done = dir.resolve("done.txt");
        List<String> captures = runInPane("", stdout, done);
        assertEquals("0", Files.readString(done).strip());
        boolean seen = captures.stream().anyMatch(c -> c.contains("twping: ") && c.contains(" s  sent ")
                && c.contains("  received ") && c.contains("  lost ") && c.contains("rtt p50 "));   // the widest form
        assertTrue(seen, "a progress line in one of " + captures.size() + " captures; last: " + captures.getLast());
        assertFalse(captures.getLast().contains("rtt p50 "), "the line is cleared at the end: " + captures.getLast());
        String out = Files.readString(stdout);
        assertTrue(out.contains(" sent, ") && out.contains("--- twping statistics from"), out);
        assertFalse(out.contains("rtt p50") || out.contains("\r") || out.contains("\033"), out);
    }

    @Test
    void noProgressKeepsTheTerminalQuiet() throws Exception {
        startTmux(200, 50);
        Path stdout = dir.resolve("out.txt");
        Path done = dir.resolve("done.txt");
        List<String> captures = runInPane("--no-progress", stdout, done);
        assertEquals("0", Files.readString(done).strip());
        assertTrue(captures.size() > 3, "captured while it ran");
        assertTrue(captures.stream().noneMatch(c -> c.contains("rtt p50 ")), captures.getLast());
        assertTrue(Files.readString(stdout).contains(" sent, "));
    }
}
