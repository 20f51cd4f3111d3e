package io.github.twping.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;

/**
 * The real twping entry point ({@link Twping}) against hostile or stalling servers and hostile arguments:
 * one clear line and C's status (docs/CLI.md, docs/CLIENT.md). {@link Twping#cancel()} is what the signal
 * handlers of {@link Main} call ({@code TwpingSignalsTest} covers that wiring in a child JVM).
 */
class TwpingHostilePeerTest {
    private static final long RUN_DEADLINE_S = 60;
    /** Far beyond any cancellation path: a run still waiting for it has not stopped "at once". */
    private static final String START_DELAY_S = "120";
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** A thread per task: the common pool has one worker on two cores, and the server would starve the run. */
    private static final Executor OWN_THREAD = r -> Thread.ofPlatform().daemon(true).start(r);

    @TempDir
    Path dir;

    /** One twping run in the background. */
    private static final class Run {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Twping twping;
        final CompletableFuture<Integer> status;

        Run(String... args) {
            twping = Twping.create(Arrays.asList(args), "twping", new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), new ByteArrayInputStream(new byte[0]),
                    Map.of());
            status = CompletableFuture.supplyAsync(twping::run, OWN_THREAD);
        }

        int await() {
            try {
                return status.get(RUN_DEADLINE_S, TimeUnit.SECONDS);
            } catch (Exception e) {
                twping.cancel();
                fail("twping did not finish within " + RUN_DEADLINE_S + " s: " + e + "\nstderr:\n" + err());
                return -1;
            }
        }

        String out() {
            return out.toString(StandardCharsets.UTF_8);
        }

        String err() {
            return err.toString(StandardCharsets.UTF_8);
        }

        /** stderr without the clock-state warnings of this machine. */
        List<String> diagnostics() {
            return err().lines().filter(l -> !l.startsWith("twping: NTP")).toList();
        }
    }

    private static Run run(String... args) {
        return new Run(args);
    }

    // ---- item 3 of docs/CLI.md "Hostile or mistyped input": brackets without a port -------------------------

    @Test
    void shouldFailInTheResolverForABracketedAddressWithoutPort() {
        Run r = run("-c", "1", "[::1]");
        assertEquals(1, r.await(), r.err());
        assertEquals(List.of("twping: getaddrinfo(): Name or service not known",
                "twping: Unable to open control connection to [::1]."), r.diagnostics());
    }

    @Test
    void shouldFailInTheResolverForABracketedSourceAddress() {
        Run r = run("-c", "1", "-S", "[::1]", "[::1]:9");
        assertEquals(1, r.await(), r.err());
        assertEquals(List.of("twping: getaddrinfo(): [::1]: Name or service not known",
                "twping: Unable to open control connection to [::1]:9."), r.diagnostics());
    }

    // ---- PBKDF2 Count from a hostile Server-Greeting ---------------------------------------------------------

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRefuseAGreetingCountThatWouldBurnCpuForMinutes() throws Exception {
        Path pfs = dir.resolve("alice.pfs");
        Files.writeString(pfs, "alice 7333637265742d6c61622d6b6579\n");
        try (ServerSocket listener = new ServerSocket(0, 1, LOOPBACK)) {
            CompletableFuture<Integer> received = CompletableFuture.supplyAsync(() -> {
                try (Socket s = listener.accept()) {
                    s.setSoTimeout(30_000);
                    byte[] g = greeting(2); // authenticated only
                    g[48] = 0x7f; // Count 2^31 - 1
                    g[49] = (byte) 0xff;
                    g[50] = (byte) 0xff;
                    g[51] = (byte) 0xff;
                    s.getOutputStream().write(g);
                    return s.getInputStream().readAllBytes().length;
                } catch (IOException e) {
                    return -1;
                }
            }, OWN_THREAD);
            Run r = run("-u", "alice", "-k", pfs.toString(), "-A", "A", "-c", "1",
                    "127.0.0.1:" + listener.getLocalPort());
            assertEquals(1, r.await(), r.err());
            assertEquals(List.of("twping: OWPControlOpen: Invalid PBKDF2 count 2147483647",
                    "twping: Unable to open control connection to 127.0.0.1:" + listener.getLocalPort() + "."),
                    r.diagnostics());
            assertEquals(0, received.get(30, TimeUnit.SECONDS), "the client must send nothing");
        }
    }

    // ---- a signal between the control connection's opening and the test -------------------------------------

    /** Where the stalling server stops answering. */
    enum Stall {
        /** Reads the Request-TW-Session, never sends the Accept-Session. */
        ACCEPT_SESSION,
        /** Accepts the session, reads the Start-Sessions, never sends the Start-Ack. */
        START_ACK,
        /** Answers everything; the client then waits for the start time. */
        START_TIME
    }

    /** A TWAMP server (open mode) on loopback that stops answering at one step and records what it got after. */
    private static final class StallingServer implements AutoCloseable {
        final ServerSocket listener;
        final CountDownLatch stalled = new CountDownLatch(1);
        final CompletableFuture<byte[]> afterStall = new CompletableFuture<>();
        final DatagramSocket reflectorPort;

        StallingServer(Stall stall) throws IOException {
            listener = new ServerSocket(0, 1, LOOPBACK);
            reflectorPort = new DatagramSocket(0, LOOPBACK);
            Thread t = new Thread(() -> serve(stall), "stalling-twamp-server");
            t.setDaemon(true);
            t.start();
        }

        private void serve(Stall stall) {
            try (Socket s = listener.accept()) {
                s.setSoTimeout(90_000);
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                out.write(greeting(1));
                expect(in, 164);                     // Set-Up-Response
                out.write(new byte[48]);             // Server-Start, Accept 0
                expect(in, 112);                     // Request-TW-Session
                if (stall != Stall.ACCEPT_SESSION) {
                    byte[] accept = new byte[48];    // Accept-Session: Accept 0, port, SID
                    int port = reflectorPort.getLocalPort();
                    accept[2] = (byte) (port >>> 8);
                    accept[3] = (byte) port;
                    Arrays.fill(accept, 4, 20, (byte) 0x5a);
                    out.write(accept);
                    expect(in, 32);                  // Start-Sessions
                    if (stall != Stall.START_ACK) {
                        out.write(new byte[32]);     // Start-Ack, Accept 0
                    }
                }
                stalled.countDown();
                afterStall.complete(in.readAllBytes()); // until the client closes (bounded by the timeout)
            } catch (IOException e) {
                afterStall.completeExceptionally(e);
            } finally {
                stalled.countDown();
            }
        }

        private static void expect(InputStream in, int length) throws IOException {
            if (in.readNBytes(length).length != length) {
                throw new IOException("client closed early");
            }
        }

        int port() {
            return listener.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            listener.close();
            reflectorPort.close();
        }
    }

    private static byte[] greeting(int modes) {
        byte[] g = new byte[64];
        g[15] = (byte) modes;
        g[50] = 4; // Count 1024
        return g;
    }

    private static Run stallThenCancel(StallingServer server, boolean waitForApproximately) throws Exception {
        Run r = run("-c", "10", "-i", "0.1", "-z", START_DELAY_S, "127.0.0.1:" + server.port());
        assertTrue(server.stalled.await(RUN_DEADLINE_S, TimeUnit.SECONDS), "the client never reached the stall");
        if (waitForApproximately) {
            // the line follows the Start-Ack: the client is in its wait for the start time
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUN_DEADLINE_S);
            while (!r.out().contains("seconds until results available")) {
                assertTrue(System.nanoTime() < deadline, "no Approximately line: " + r.err());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        r.twping.cancel();
        return r;
    }

    @Test
    void shouldStopAtOnceWhenCancelledWhileTheServerWithholdsTheAcceptSession() throws Exception {
        try (StallingServer server = new StallingServer(Stall.ACCEPT_SESSION)) {
            Run r = stallThenCancel(server, false);
            assertEquals(1, r.await(), r.err());
            assertEquals(List.of("twping: _OWPReadAcceptSession:Unable to read from socket.",
                    "twping: Session Failed!"), r.diagnostics());
            assertEquals("", r.out());
        }
    }

    @Test
    void shouldStopAtOnceWhenCancelledWhileTheServerWithholdsTheStartAck() throws Exception {
        try (StallingServer server = new StallingServer(Stall.START_ACK)) {
            Run r = stallThenCancel(server, false);
            assertEquals(1, r.await(), r.err());
            assertEquals(List.of("twping: _OWPReadStartAck: Unable to read from socket.",
                    "twping: Session Failed!"), r.diagnostics());
            assertEquals("", r.out());
        }
    }

    @Test
    void shouldStopAtOnceWithZeroPacketResultsWhenCancelledBeforeTheStartTime() throws Exception {
        try (StallingServer server = new StallingServer(Stall.START_TIME)) {
            long cancelledAt = System.nanoTime();
            Run r = stallThenCancel(server, true);
            assertEquals(0, r.await(), r.err());
            long tookS = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - cancelledAt);
            assertTrue(tookS < Long.parseLong(START_DELAY_S) / 2, "waited for the start time: " + tookS + " s");
            assertEquals(List.of(), r.diagnostics());
            assertTrue(r.out().contains("0 sent, 0 lost (0.000%)"), r.out());
            // no session thread is left parked until the start time (the warm-up's throw-away session, which
            // has threads of the same name, ends within its own bound)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.isAlive() && t.getName().equals("twping-sender"))) {
                assertTrue(System.nanoTime() < deadline, "a sender thread is left waiting for the start time");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            byte[] stop = server.afterStall.get(RUN_DEADLINE_S, TimeUnit.SECONDS);
            assertEquals(32, stop.length, "one Stop-Sessions, then the client closed");
            assertEquals(3, stop[0], "Stop-Sessions command");
            assertEquals(0, stop[1], "Accept 0: the worker stopped normally");
        }
    }

    // ---- C's texts for -p -d DIR and -F /dev/full -----------------------------------------------------------

    @Test
    void shouldPrintTheDoStatsLineWhenThePerFileSummaryCannotBeOpened() {
        Path missing = dir.resolve("nonexist");
        Run r = run("--loopback", "-c", "2", "-i", "0.01f", "-p", "-d", missing.toString());
        assertEquals(0, r.await(), r.err());
        List<String> lines = r.diagnostics();
        assertEquals(2, lines.size(), r.err());
        assertTrue(lines.get(0).matches("twping: OWStatsParse: fopen\\(" + Pattern.quote(
                missing.toString()) + "/\\d{20}\\.i\\): No such file or directory"), lines.get(0));
        assertEquals("twping: do_stats(\"from\" session)", lines.get(1));
    }

    @Test
    void shouldNameTheFailedHeaderWriteFirstForAFullDevice() {
        Path full = Path.of("/dev/full");
        Assumptions.assumeTrue(Files.isWritable(full), "no writable /dev/full");
        Run r = run("--loopback", "-c", "2", "-i", "0.01f", "-F", full.toString());
        // --loopback adds the exact block, a result output: it cannot be made from the unwritten file (exit 4)
        assertEquals(4, r.await(), r.err());
        List<String> lines = r.diagnostics();
        assertEquals(List.of("twping: OWPWriteDataHeader: fwrite(): No space left on device",
                "twping: run_tw_test: Unable to write data file header",
                "twping: _OWPReadDataHeaderInitial: Invalid owp file",
                "twping: OWPReadDataHeader: Invalid file?",
                "twping: do_stats(\"from\" session)"), lines.subList(0, 5));
        assertTrue(lines.get(5).startsWith("twping: results: "), lines::toString);
        assertTrue(Files.exists(full), "the device must never be removed");
    }
}
