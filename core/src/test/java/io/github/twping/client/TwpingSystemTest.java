package io.github.twping.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.twping.cli.Twping;
import io.github.twping.server.EmbeddedServer;
import io.github.twping.session.ReflectorFaultInjection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * End to end: the twping library entry point against our embedded server over real loopback sockets
 * (TWAMP-Control over TCP, TWAMP-Test over UDP) in every mode, with fault injection in the reflector.
 */
class TwpingSystemTest {
    private static final byte[] PASSPHRASE = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);
    private static final long DEADLINE_MS = 60_000;

    @TempDir
    Path dir;

    /** Output of one run. */
    private record Run(int status, String out, String err) {
        Map<String, String> machine() {
            Map<String, String> m = new HashMap<>();
            for (String line : out.split("\n")) {
                int tab = line.indexOf('\t');
                if (tab > 0) {
                    m.putIfAbsent(line.substring(0, tab), line.substring(tab + 1));
                }
            }
            return m;
        }
    }

    private static EmbeddedServer server(ReflectorFaultInjection faults) throws IOException {
        return EmbeddedServer.start(EmbeddedServer.options().authModes("OAEM").passphrase("alice", PASSPHRASE)
                .faults(faults));
    }

    private Path pfs() throws IOException {
        Path file = dir.resolve("alice.pfs");
        Files.writeString(file, "alice 7333637265742d6c61622d6b6579\n");
        return file;
    }

    private static Run run(String... args) {
        return run(null, args);
    }

    private static Run run(BiConsumer<Twping, ByteArrayOutputStream> whileRunning, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Twping twping = Twping.create(Arrays.asList(args), "twping", new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), new ByteArrayInputStream(new byte[0]), Map.of());
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(twping::run);
        if (whileRunning != null) {
            whileRunning.accept(twping, out);
        }
        try {
            int rc = status.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
            return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } catch (Exception e) {
            twping.cancel();
            fail("twping did not finish within " + DEADLINE_MS + " ms: " + e + "\nstderr:\n" + err);
            return null;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"O", "A", "E", "M"})
    void shouldMeasureWithoutLossInEveryMode(String mode) throws IOException {
        try (EmbeddedServer server = server(null)) {
            Run r = run("-c", "40", "-i", "0.002f", "-L", "1", "-M", "-A", mode, "-u", "alice", "-k",
                    pfs().toString(), "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            Map<String, String> m = r.machine();
            assertEquals("40", m.get("SENT"), r.out());
            assertEquals("0", m.get("LOST"), r.out());
            assertEquals("0", m.get("DUPS_FWD"));
            assertEquals("0", m.get("DUPS_BCK"));
            assertEquals("1", m.get("SESSION_FINISHED"));
            // Single-letter masks give docs/PROTOCOL-TEST.md default padding: 27 for O/M, 64 for A/E.
            assertEquals(mode.equals("O") || mode.equals("M") ? "27" : "64", m.get("PACKET_PADDING"));
            // TTL 255 set by both ends, received as 255 on loopback (no routed hop).
            assertEquals("255", m.get("MINTTL_FWD"));
            assertEquals("255", m.get("MINTTL_BCK"));
            assertTrue(r.out().startsWith("Approximately "), r.out());
        }
    }

    @Test
    void shouldMeasureOverIpv6() throws IOException {
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options().listen("::1", 0))) {
            Run r = run("-c", "20", "-i", "0.002f", "-L", "1", "-M", "[::1]:" + server.port());
            assertEquals(0, r.status(), r.err());
            Map<String, String> m = r.machine();
            assertEquals("20", m.get("SENT"));
            assertEquals("0", m.get("LOST"));
            assertEquals("::1", m.get("TO_ADDR"));
        }
    }

    @Test
    void shouldCountExactlyTheRepliesTheReflectorDrops() throws IOException {
        try (EmbeddedServer server = server(new ReflectorFaultInjection(5, 0, 0, 0))) {
            Run r = run("-c", "50", "-i", "0.002f", "-L", "0.5", "-M", "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            assertEquals("50", r.machine().get("SENT"));
            assertEquals("10", r.machine().get("LOST"), r.out());
            assertEquals("0", r.machine().get("SYNC"), "lost records clear the sync flag (docs/STATISTICS.md)");
        }
    }

    @Test
    void shouldCountExactlyTheRepliesTheReflectorDuplicates() throws IOException {
        try (EmbeddedServer server = server(new ReflectorFaultInjection(0, 5, 0, 0))) {
            Run r = run("-c", "50", "-i", "0.002f", "-L", "0.5", "-M", "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            Map<String, String> m = r.machine();
            assertEquals("50", m.get("SENT"));
            assertEquals("0", m.get("LOST"));
            assertEquals("10", m.get("DUPS_BCK"), r.out());
            assertEquals("0", m.get("DUPS_FWD"));
        }
    }

    @Test
    void shouldIgnoreRepliesWithABadHmac() throws IOException {
        try (EmbeddedServer server = server(new ReflectorFaultInjection(0, 0, 0, 5))) {
            Run r = run("-c", "50", "-i", "0.002f", "-L", "0.5", "-M", "-A", "A", "-u", "alice", "-k",
                    pfs().toString(), "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            assertEquals("10", r.machine().get("LOST"), r.out());
            long warnings = r.err().lines()
                    .filter(l -> l.equals("twping: run_tw_test: Invalid HMAC on received packet: ignoring")).count();
            assertEquals(10, warnings, r.err());
        }
    }

    @Test
    void shouldMeasureWithZeroAddresses() throws IOException {
        try (EmbeddedServer server = server(null)) {
            Run r = run("-Z", "-c", "10", "-i", "0.002f", "-L", "1", "-M", "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            assertEquals("10", r.machine().get("SENT"));
            assertEquals("0", r.machine().get("LOST"));
        }
    }

    @Test
    void shouldUseTheRequestedPortRangeAndDscp() throws IOException {
        try (EmbeddedServer server = server(null)) {
            Run r = run("-P", "19500-19510", "-D", "EF", "-c", "10", "-i", "0.002f", "-L", "1", "-M",
                    "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            int port = Integer.parseInt(r.machine().get("FROM_PORT"));
            assertTrue(port >= 19500 && port <= 19510, "FROM_PORT " + port);
            assertEquals("0x2e", r.machine().get("DSCP"));
            assertEquals("0", r.machine().get("LOST"));
        }
    }

    @Test
    void shouldCarryTheRequestedDscpOnTheWire() throws IOException {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options()
                .log(new PrintStream(log, true, StandardCharsets.UTF_8), false))) {
            Run r = run("-D", "AF41", "-c", "10", "-i", "0.002f", "-L", "1", "-M", "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            assertEquals("0x22", r.machine().get("DSCP"));
        }
        // The reflector logs the DSCP of the sender packets as the kernel delivered them (IP_RECVTOS).
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("DSCP received 0x22"), log.toString());
    }

    @Test
    void shouldPrintOneRawLinePerRecord() throws IOException {
        try (EmbeddedServer server = server(new ReflectorFaultInjection(4, 0, 0, 0))) {
            Path file = dir.resolve("session.owp");
            Run r = run("-R", "-F", file.toString(), "-c", "20", "-i", "0.002f", "-L", "0.5",
                    "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            List<String> lines = r.out().lines().toList();
            assertEquals(20, lines.size(), r.out());
            long lostLines = lines.stream().filter(l -> l.split(" ")[4].equals("00000000000000000000")).count();
            assertEquals(5, lostLines);
            long records = (Files.size(file) - dataOffset(file)) / 50;
            assertEquals(20, records);
        }
    }

    private static long dataOffset(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        long offset = 0;
        for (int i = 32; i < 40; i++) {
            offset = (offset << 8) | (b[i] & 0xff);
        }
        return offset;
    }

    @Test
    void shouldPrintPartialResultsWhenCancelled() throws IOException {
        try (EmbeddedServer server = server(null)) {
            Run r = run((twping, out) -> {
                awaitStarted(out);
                twping.cancel();
            }, "-c", "100000", "-i", "0.01f", "-M",
                    "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            long sent = Long.parseLong(r.machine().get("SENT"));
            assertTrue(sent < 100_000, "sent " + sent);
            assertEquals("1", r.machine().get("SESSION_FINISHED"));
        }
    }

    /** Waits (bounded) until the session has started: the "Approximately" line follows Start-Ack. */
    private static void awaitStarted(ByteArrayOutputStream out) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!out.toString(StandardCharsets.UTF_8).contains("seconds until results available")) {
            if (System.nanoTime() > deadline) {
                fail("the session did not start within 60 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    @Test
    void shouldFailTheTestWhenTheServerGoesAway() throws IOException {
        EmbeddedServer server = server(null);
        Run r = run((twping, out) -> {
            awaitStarted(out);
            server.close();
        }, "-c", "100000", "-i", "0.01f", "-M", "127.0.0.1:" + server.port());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("twping: Test session(s) Failed..."), r.err());
    }

    @Test
    void shouldReportAWorkerFailureForZeroPacketsAndExitZero() throws IOException {
        try (EmbeddedServer server = server(null)) {
            Run r = run("-c", "0", "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
            List<String> expected = new ArrayList<>(List.of(
                    "twping: Invalid test distribution parameters",
                    "twping: run_tw_test: Unable to write data file header",
                    "twping: _OWPReadDataHeaderInitial: Invalid owp file",
                    "twping: OWPReadDataHeader: Invalid file?",
                    "twping: do_stats(\"from\" session)"));
            List<String> lines = r.err().lines().filter(l -> !l.startsWith("twping: NTP")).toList();
            assertEquals(expected, lines);
        }
    }

    @Test
    void shouldExitWithStatusThreeWhenALossGateIsExceeded() throws IOException {
        try (EmbeddedServer server = server(new ReflectorFaultInjection(5, 0, 0, 0))) {
            Run r = run("--max-loss", "5", "-c", "20", "-i", "0.002f", "-L", "0.5", "-Q",
                    "127.0.0.1:" + server.port());
            assertEquals(3, r.status(), r.err());
            assertTrue(r.err().contains("gate: loss 20.000% exceeds --max-loss 5%"), r.err());
        }
    }

    @Test
    void shouldNameTheExactMedianInTheSummaryNumberFormatWhenTheRttGateFails() {
        Run r = run("--loopback", "--max-median-rtt", "0.000001", "-c", "10", "-i", "0.002f", "-L", "1", "-Q");
        assertEquals(3, r.status(), r.err());
        String line = r.err().lines().filter(l -> l.contains("gate:")).findFirst().orElseThrow();
        assertTrue(line.matches("twping: gate: exact median round-trip time [0-9.e+-]+ ms exceeds --max-median-rtt "
                + "1e-06 ms \\(from the records; the summary's median is rounded to the -b bucket\\)"), line);
        assertFalse(line.contains("E-"), line);
    }

    @Test
    void shouldPassAGateThatHolds() throws IOException {
        try (EmbeddedServer server = server(null)) {
            Run r = run("--max-loss", "0", "--max-median-rtt", "1000", "-c", "10", "-i", "0.002f", "-L", "1", "-Q",
                    "127.0.0.1:" + server.port());
            assertEquals(0, r.status(), r.err());
        }
    }

    @Test
    void shouldRunAgainstTheEmbeddedServerWithLoopback() {
        Run r = run("--loopback", "-c", "10", "-i", "0.002f", "-L", "1", "-M");
        assertEquals(0, r.status(), r.err());
        assertEquals("10", r.machine().get("SENT"));
        assertEquals("0", r.machine().get("LOST"));
    }
}
