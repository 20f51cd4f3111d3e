package io.github.twping.server;

import io.github.twping.testsupport.Wait;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What sessions hold in the server (docs/SERVER.md, sessions, threads and memory): an accepted session that
 * has not been started holds its UDP socket but no thread; a started one holds one platform thread for its
 * reflector loop; closing the control connection ends the threads and frees every port.
 */
class SessionResourcesTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int SESSIONS = 40;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private static long reflectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("reflector-")).count();
    }

    private static boolean portFree(int port) {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(LOOPBACK, port))) {
            return true;
        } catch (SocketException stillBound) {
            return false;
        }
    }


    @Test
    void shouldHoldNoThreadBeforeTheStartAndReleaseThreadsAndPortsWithTheConnection() throws Exception {
        EmbeddedServer server = EmbeddedServer.start(EmbeddedServer.options()
                .log(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false));
        toClose.add(server);
        long before = reflectorThreads();
        ControlClient c = ControlClient.connect(ControlClientOptions.of(LOOPBACK.getHostAddress(), server.port())
                .readTimeoutMs(10_000).connectTimeoutMs(10_000));
        toClose.add(c);
        InetSocketAddress local = c.localAddress();
        long startNtp = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs()) + 30 * NtpTime.ONE_SECOND;
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++) {
            SessionAcceptance a = c.requestSession(SessionRequest.forTwping(4, local.getAddress(), 20_000 + i,
                    LOOPBACK, 0, 0, startNtp, NtpTime.ONE_SECOND * 2, 0));
            assertEquals(0, a.acceptCode());
            ports.add(a.port());
        }
        assertEquals(before, reflectorThreads(), "accepted, not started sessions must hold no thread");
        assertTrue(ports.stream().noneMatch(SessionResourcesTest::portFree), "each session holds its port");

        c.startSessions();
        Wait.until(() -> reflectorThreads() == before + SESSIONS, "one reflector thread per started session");

        c.close();
        Wait.until(() -> reflectorThreads() == before, "the reflector threads end with the connection");
        Wait.until(() -> ports.stream().allMatch(SessionResourcesTest::portFree), "every reflector port freed");
        Wait.until(() -> server.activeConnections() == 0, "the connection released");
    }
}
