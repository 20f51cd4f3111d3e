package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.twping.fuzz.Fuzz;
import io.github.twping.protocol.Mode;
import io.github.twping.server.EmbeddedServer;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz: TWAMP-Control on both sides, over loopback TCP, seeded with the control messages recorded from C
 * twping/twampd 5.2.3 in all four modes. Server side: mutated client message streams against our server;
 * every connection must end (no hang), no connection may end by an internal error, and a well-behaved
 * client is served afterwards. Client side: mutated server message streams against {@link ControlClient};
 * it must fail with a {@link ControlException} (one message) or succeed, never throw anything else or hang.
 */
class ControlFuzzTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final String[] VECTORS = {"open", "auth", "enc", "mixed"};

    private static List<byte[]> streams(String direction) {
        List<byte[]> out = new ArrayList<>();
        for (String v : VECTORS) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (Fuzz.Segment s : Fuzz.controlSegments(v)) {
                if (s.direction().equals(direction)) {
                    all.writeBytes(s.data());
                }
            }
            out.add(all.toByteArray());
        }
        return out;
    }

    @Test
    @Timeout(600)
    void shouldEndEveryMutatedClientConversationAndKeepServing() throws Exception {
        ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
        List<byte[]> seeds = streams("C->S");
        SplittableRandom r = Fuzz.random("control-server");
        int inputs = Fuzz.inputs(400);
        long start = System.nanoTime();
        long deadline = Fuzz.deadlineNs();
        int done = 0;
        try (EmbeddedServer s = EmbeddedServer.start(EmbeddedServer.options().authModes("OAEM")
                .passphrase("alice", "s3cr3t-lab-key".getBytes(StandardCharsets.US_ASCII)).controlTimeoutMs(2000)
                .testTimeoutMs(2000).log(log, false))) {
            for (; done < inputs && System.nanoTime() < deadline; done++) {
                byte[] input = Fuzz.mutate(Fuzz.pick(seeds, r), Fuzz.pick(seeds, r), r);
                try (Socket raw = new Socket(LOOPBACK, s.port())) {
                    raw.setSoTimeout(15_000);
                    InputStream in = raw.getInputStream();
                    if (in.readNBytes(64).length != 64) {
                        continue; // refused (e.g. no mode offered): nothing to send to
                    }
                    try {
                        raw.getOutputStream().write(input);
                        raw.shutdownOutput();
                        while (in.read() >= 0) {
                            // drain the answers until the server closes
                        }
                    } catch (SocketTimeoutException hung) {
                        fail("server did not end the connection for input " + done + " (seed " + Fuzz.seed() + ")\n"
                                + Fuzz.show(input));
                    } catch (IOException reset) {
                        // the server closed first: an end too
                    }
                }
                String text = logBytes.toString(StandardCharsets.UTF_8);
                assertFalse(text.contains("internal error"), () -> text);
            }
            waitUntil(() -> s.activeConnections() == 0, "every fuzzed connection released");
            try (ControlClient good = ControlClient.connect(ControlClientOptions.of(LOOPBACK.getHostAddress(), s.port())
                    .requestedModes(Mode.OPEN.bits()).readTimeoutMs(5000).connectTimeoutMs(5000))) {
                long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
                SessionAcceptance a = good.requestSession(SessionRequest.forTwping(4, LOOPBACK, 40000, LOOPBACK, 0, 0,
                        now, NtpTime.ONE_SECOND, 0));
                assertEquals(0, a.acceptCode());
            }
        }
        Fuzz.report("control-server", done, 0, start);
    }

    @Test
    @Timeout(600)
    void shouldFailCleanlyOnEveryMutatedServerConversation() throws Exception {
        List<byte[]> seeds = streams("S->C");
        SplittableRandom r = Fuzz.random("control-client");
        int inputs = Fuzz.inputs(400);
        long start = System.nanoTime();
        long deadline = Fuzz.deadlineNs();
        int done = 0;
        try (ServerSocket listener = new ServerSocket(0, 50, LOOPBACK)) {
            for (; done < inputs && System.nanoTime() < deadline; done++) {
                byte[] input = Fuzz.mutate(Fuzz.pick(seeds, r), Fuzz.pick(seeds, r), r);
                Thread peer = Thread.ofVirtual().start(() -> {
                    try (Socket s = listener.accept()) {
                        s.getOutputStream().write(input);
                        s.shutdownOutput();
                        s.setSoTimeout(10_000);
                        s.getInputStream().skip(Long.MAX_VALUE);
                    } catch (IOException ignored) {
                        // the client closed or reset: expected
                    }
                });
                long t0 = System.nanoTime();
                try (ControlClient c = ControlClient.connect(ControlClientOptions.of(LOOPBACK.getHostAddress(),
                        listener.getLocalPort()).requestedModes(Mode.OPEN.bits()).readTimeoutMs(3000)
                        .connectTimeoutMs(3000))) {
                    long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
                    c.requestSession(SessionRequest.forTwping(4, LOOPBACK, 40000, LOOPBACK, 0, 0, now,
                            NtpTime.ONE_SECOND, 0));
                    c.startSessions();
                    c.stopSessions(0);
                } catch (ControlException expected) {
                    assertTrue(expected.getMessage() != null, "a message");
                } catch (RuntimeException | Error e) {
                    fail("input " + done + " (seed " + Fuzz.seed() + "): " + e + "\n" + Fuzz.show(input), e);
                }
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60), "client bounded by its timeouts");
                peer.join(java.time.Duration.ofSeconds(30));
            }
        }
        Fuzz.report("control-client", done, 0, start);
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(5); // polling interval of a condition wait with a deadline
        }
    }
}
