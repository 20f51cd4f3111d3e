package io.github.twping.control;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.fuzz.FuzzDetectors;
import io.github.twping.protocol.Mode;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz (Jazzer, coverage-guided): {@link ControlClient} reading a server's messages (greeting,
 * Server-Start, Accept-Session, Start-Ack, Stop-Sessions), seeded with the server messages recorded from C
 * twampd 5.2.3 in all four modes. A loopback peer sends the input and closes; the client must fail with a
 * {@link ControlException} carrying a message or succeed, never throw anything else, within its timeouts.
 */
@Tag("fuzz-control-client")
class ControlClientFuzzTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static ServerSocket listener;

    static Stream<Arguments> recordedServerStreams() {
        return Stream.of("open", "auth", "enc", "mixed")
                .map(v -> FuzzSeeds.seed(v + " S->C", FuzzSeeds.controlStream(v, "S->C")));
    }

    @BeforeAll
    static void listen() throws IOException {
        listener = new ServerSocket(0, 50, LOOPBACK);
    }

    @AfterAll
    static void close() throws IOException {
        listener.close();
    }

    @MethodSource("recordedServerStreams")
    @FuzzTest
    void failCleanlyOrSucceed(byte[] input) throws InterruptedException {
        FuzzDetectors.allowLoopback();
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
                listener.getLocalPort()).requestedModes(Mode.OPEN.bits()).readTimeoutMs(3000).connectTimeoutMs(3000))) {
            long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
            c.requestSession(SessionRequest.forTwping(4, LOOPBACK, 40000, LOOPBACK, 0, 0, now, NtpTime.ONE_SECOND, 0));
            c.startSessions();
            c.stopSessions(0);
        } catch (ControlException expected) {
            if (expected.getMessage() == null || expected.getMessage().isEmpty()) {
                throw new AssertionError("a failure without a message\n" + FuzzSeeds.show(input), expected);
            }
        }
        if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(60)) {
            throw new AssertionError("client not bounded by its timeouts\n" + FuzzSeeds.show(input));
        }
        if (!peer.join(Duration.ofSeconds(30))) {
            throw new AssertionError("peer did not end\n" + FuzzSeeds.show(input));
        }
    }
}
