package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.github.twping.server.EmbeddedServer;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import java.net.InetSocketAddress;
import io.github.twping.testsupport.Wait;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import java.io.UncheckedIOException;

/**
 * twping in its own JVM against a server that accepts and then stays silent: a signal during the control
 * handshake ends it with C's lines and status 1 (docs/CLI.md, signals), also when it was started with the
 * signal ignored (a background job of a script); {@code --timeout} ends it naming what timed out.
 */
class TwpingSignalsTest {
    @TempDir
    Path dir;

    private Process start(int port, boolean ignored, String signal, String... extra) throws IOException {
        return start(port, ignored, signal, List.of(), extra);
    }

    private Process start(int port, boolean ignored, String signal, List<String> jvmArgs, String... extra)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(extra));
        cmd.add("127.0.0.1:" + port);
        StringBuilder sh = new StringBuilder(ignored ? "trap '' " + signal + "; exec" : "exec");
        for (String a : cmd) {
            sh.append(" '").append(a.replace("'", "'\\''")).append('\'');
        }
        return new ProcessBuilder("/bin/sh", "-c", sh.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out").toFile()).start();
    }

    private String output() throws IOException {
        return Files.readString(dir.resolve("out"), StandardCharsets.UTF_8);
    }

    /** A server that accepts one connection, optionally sends a greeting, then says nothing until closed. */
    private static CompletableFuture<Socket> silentServer(ServerSocket listener, boolean greet) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                Socket s = listener.accept();
                if (greet) {
                    byte[] g = new byte[64];
                    g[15] = 1; // modes: open
                    g[47] = 4; // count 1024
                    OutputStream out = s.getOutputStream();
                    out.write(g);
                    out.flush();
                }
                return s;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"INT,true,false,'Read failed: (Interrupted system call)'",
        "INT,false,false,'Read failed: (Interrupted system call)'",
        "TERM,false,false,'Read failed: (Interrupted system call)'",
        "INT,true,true,'Read failed:(Interrupted system call)'"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldStopOnTheFirstSignalDuringTheHandshake(String signal, boolean startIgnored, boolean greet,
            String line) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/sh")), "no /bin/sh");
        try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Socket> accepted = silentServer(listener, greet);
            Process p = start(listener.getLocalPort(), startIgnored, signal);
            try (Socket peer = accepted.get(60, TimeUnit.SECONDS)) {
                // the client may still be installing its handlers: signal until it reacts (bounded)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!p.waitFor(500, TimeUnit.MILLISECONDS)) {
                    assertTrue(System.nanoTime() < deadline, "twping ignored SIG" + signal + ": " + output());
                    new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
                }
                assertEquals(1, p.exitValue(), output());
                String text = output();
                assertTrue(text.contains("twping: " + line + "\n"), text);
                assertTrue(text.endsWith("twping: Unable to open control connection to 127.0.0.1:"
                        + listener.getLocalPort() + ".\n"), text);
            } finally {
                p.destroyForcibly();
            }
        }
    }

    /**
     * A locale that is not installed leaves the JVM's console encoding at ASCII: the lines twping writes
     * itself must still come out in the reports' encoding (UTF-8), not as '?'.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldWriteEveryLineInOneEncoding() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Process p = start(closedPort, false, "INT", List.of("-Dstdout.encoding=US-ASCII", "-Dstderr.encoding=US-ASCII"),
                "--lang", "ru");
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(1, p.exitValue(), output());
            String text = output();
            assertTrue(text.contains("Не удалось открыть управляющее соединение с 127.0.0.1:" + closedPort), text);
            assertTrue(!text.contains("??"), text);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSayWhatTimedOutWhenTimeoutFires() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/sh")), "no /bin/sh");
        try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Socket> accepted = silentServer(listener, false);
            Process p = start(listener.getLocalPort(), false, "INT", "--timeout", "1");
            try (Socket peer = accepted.get(60, TimeUnit.SECONDS)) {
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "twping did not stop at its --timeout");
                assertEquals(1, p.exitValue(), output());
                String text = output();
                assertTrue(text.contains("twping: Timed out after 1 s (--timeout) waiting for the Server-Greeting\n"
                        + "twping: Read failed: (Connection timed out)\n"), text);
            } finally {
                p.destroyForcibly();
            }
        }
    }

    /**
     * Two Ctrl-C presses: the first stops the test, a second that arrives once the partial summary is out ends
     * the process with status 0 and the summary whole (C has printed and exited by then, docs/CLI.md signals).
     * The second signal follows the summary's first line, not a delay.
     */
    @Test
    void shouldKeepThePartialSummaryAndExitZeroWhenASecondSignalFollowsIt() throws Exception {
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options())) {
            assertTwoSignalsKeepThePartialSummary(server.port());
        }
    }

    /** SIGINT once the session is set up, again once the partial summary starts: exit 0 with the summary. */
    private void assertTwoSignalsKeepThePartialSummary(int port, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("-c", "100000", "-i", "0.01"));
        args.addAll(List.of(extra));
        Process p = start(port, false, "INT", args.toArray(new String[0]));
        try {
            Wait.until(() -> outputContains("until results available") || !p.isAlive(), "the test to be set up");
            assertTrue(p.isAlive(), this::outputOrEmpty);
            signal(p, "INT");
            Wait.until(() -> outputContains("--- twping statistics") || !p.isAlive(), "the partial summary");
            signal(p, "INT");
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "twping did not end after two signals");
            String out = output();
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("--- twping statistics") && out.contains("two-way jitter = "), out);
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * The same two Ctrl-C presses in a STAMP session ({@code --stamp}, against a reflector of this test): the
     * partial summary comes, and the second signal after it exits 0 (before, the STAMP run did not say that its
     * summary was out, and the second signal exited 2).
     */
    @Test
    void shouldKeepTheStampPartialSummaryAndExitZeroWhenASecondSignalFollowsIt() throws Exception {
        StampReflector reflector = new StampReflector(StampReflectorSpec.stamp(),
                StampReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
        try (reflector) {
            reflector.start();
            assertTwoSignalsKeepThePartialSummary(reflector.localAddress().getPort(), "--stamp");
        }
    }

    private static void signal(Process p, String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
    }

    private boolean outputContains(String text) {
        return outputOrEmpty().contains(text);
    }

    private String outputOrEmpty() {
        try {
            return output();
        } catch (IOException e) {
            return "";
        }
    }
}
