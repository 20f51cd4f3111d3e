package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.fuzz.FuzzDetectors;
import io.github.twping.protocol.Mode;
import io.github.twping.server.EmbeddedServer;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz (Jazzer, coverage-guided): our server's TWAMP-Control state machine in all four modes, over loopback
 * TCP, seeded with the client messages recorded from C twping 5.2.3 in open, authenticated, encrypted and
 * mixed mode (the mode is the client's choice in its Set-Up-Response, so the four seeds reach the four
 * modes). One connection per input: read the greeting, send the input, close the sending side. Every
 * connection must end (15 s read deadline), none may end by an internal error or log a stack trace, and
 * after the run every connection is released and a well-behaved client is still served.
 */
@Tag("fuzz-control-server")
class ControlServerFuzzTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final ByteArrayOutputStream LOG = new ByteArrayOutputStream();
    private static EmbeddedServer server;
    private static final Pattern INTERNAL_ERROR = Pattern.compile(
            "^twampd\\[\\d+\\]: Connection from \\S+ ended by an internal error");
    private static String pendingLog = "";

    static Stream<Arguments> recordedClientStreams() {
        return Stream.of("open", "auth", "enc", "mixed")
                .map(v -> FuzzSeeds.seed(v + " C->S", FuzzSeeds.controlStream(v, "C->S")));
    }

    @BeforeAll
    static void startServer() throws IOException {
        server = EmbeddedServer.start(EmbeddedServer.options().authModes("OAEM")
                .passphrase("alice", "s3cr3t-lab-key".getBytes(StandardCharsets.US_ASCII)).controlTimeoutMs(2000)
                .testTimeoutMs(2000).log(new PrintStream(LOG, true, StandardCharsets.UTF_8), false));
    }

    @MethodSource("recordedClientStreams")
    @FuzzTest
    void serveOrRefuse(byte[] input) throws IOException {
        FuzzDetectors.allowLoopback();
        try (Socket raw = new Socket(LOOPBACK, server.port())) {
            raw.setSoTimeout(15_000);
            InputStream in = raw.getInputStream();
            if (in.readNBytes(64).length == 64) {
                raw.getOutputStream().write(input);
                raw.shutdownOutput();
                while (in.read() >= 0) {
                    // drain the answers until the server closes
                }
            }
        } catch (SocketTimeoutException hung) {
            throw new AssertionError("the server did not end the connection\n" + FuzzSeeds.show(input));
        } catch (IOException reset) {
            // the server closed first: an end too
        }
        checkLog(input);
    }

    /**
     * The server log since the last check. The server escapes every control character of a message, so each
     * line must start with its prefix (a line without it is a stack trace or a forged line), and none may say
     * that a connection ended by an internal error (the peer's address precedes that text: a peer cannot
     * forge it, whereas peer strings such as a KeyID can contain any printable text).
     */
    private static void checkLog(byte[] input) {
        String text;
        synchronized (LOG) {
            text = pendingLog + LOG.toString(StandardCharsets.UTF_8);
            LOG.reset();
        }
        int end = text.lastIndexOf('\n') + 1;
        pendingLog = text.substring(end);
        for (String line : text.substring(0, end).split("\n")) {
            if (!line.isEmpty() && (!line.startsWith("twampd[") || INTERNAL_ERROR.matcher(line).find())) {
                throw new AssertionError("server log line: " + line + "\ninput: " + FuzzSeeds.show(input));
            }
        }
    }

    @AfterAll
    static void goodClientStillServed() throws Exception {
        try (EmbeddedServer s = server) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (s.activeConnections() != 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("fuzzed connections not released: " + s.activeConnections());
                }
                Thread.sleep(5); // polling interval of a condition wait with a deadline
            }
            try (ControlClient good = ControlClient.connect(ControlClientOptions.of(LOOPBACK.getHostAddress(), s.port())
                    .requestedModes(Mode.OPEN.bits()).readTimeoutMs(5000).connectTimeoutMs(5000))) {
                long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
                SessionAcceptance a = good.requestSession(SessionRequest.forTwping(4, LOOPBACK, 40000, LOOPBACK, 0, 0,
                        now, NtpTime.ONE_SECOND, 0));
                assertEquals(0, a.acceptCode());
            }
        }
    }
}
