package io.github.twping.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.ControlException;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.protocol.AcceptCode;
import io.github.twping.protocol.Mode;
import io.github.twping.session.HandBuiltSender;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.io.ByteArrayOutputStream;
import java.net.DatagramSocket;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.github.twping.control.ControlActivity;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;

class TwampServerTest {
    private static final byte[] SECRET = "s3cr3t-lab-key".getBytes(StandardCharsets.US_ASCII);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
    /** Failure bounds of socket I/O and condition waits: generous, the machine may be loaded. */
    private static final int IO_TIMEOUT_MS = 30_000;
    private static final long WAIT_SECONDS = 60;

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private EmbeddedServer server(EmbeddedServer.Options options) throws Exception {
        EmbeddedServer s = EmbeddedServer.start(options.passphrase("alice", SECRET).log(log, true));
        toClose.add(s);
        return s;
    }

    private ControlClient client(EmbeddedServer s, int modes, String user, byte[] pass) throws Exception {
        ControlClientOptions o = ControlClientOptions.of(LOOPBACK.getHostAddress(), s.port())
                .requestedModes(modes).readTimeoutMs(IO_TIMEOUT_MS).connectTimeoutMs(IO_TIMEOUT_MS);
        if (user != null) {
            o.identity(user.getBytes(StandardCharsets.US_ASCII), pass);
        }
        ControlClient c = ControlClient.connect(o);
        toClose.add(c);
        return c;
    }

    private static SessionRequest request(InetSocketAddress sender, int padding) {
        long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
        return SessionRequest.forTwping(4, sender.getAddress(), sender.getPort(), LOOPBACK, 0, padding,
                now, NtpTime.ONE_SECOND * 2, 0);
    }

    private HandBuiltSender sender(int mode) throws Exception {
        HandBuiltSender s = new HandBuiltSender(mode, null, null);
        toClose.add(s);
        return s;
    }

    private static void reflectSome(HandBuiltSender s, SessionAcceptance a, int count) throws Exception {
        InetSocketAddress reflector = new InetSocketAddress(LOOPBACK, a.port());
        for (int i = 0; i < count; i++) {
            s.send(s.build(i, 0xE000_0000_0000_0000L + i, 1, 0), reflector);
            HandBuiltSender.Reply r = s.receive();
            assertTrue(r.hmacOk(), "reply HMAC");
            assertEquals(i, r.senderSeq());
            assertEquals(i, r.reflectorSeq());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"O", "A", "E", "M"})
    void shouldRunSessionsInEveryMode(String letter) throws Exception {
        int mode = Mode.parseLetters(letter);
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlClient c = client(s, mode, mode == 1 ? null : "alice", SECRET);
        assertEquals(mode, c.mode().bits());
        HandBuiltSender sender = new HandBuiltSender(mode, null, null); // only for its address
        SessionAcceptance a = c.requestSession(request(sender.address(), 0));
        assertEquals(0, a.acceptCode());
        if (mode == 2 || mode == 4) {
            TestSessionKeys keys = c.deriveFromSessionKeys((aes, hmac) -> TestSessionKeys.derive(a.sid(), aes, hmac));
            sender.close();
            sender = new HandBuiltSender(mode, keys.aesKey(), keys.hmacKey(), sender.address().getPort());
        }
        toClose.add(sender);
        c.startSessions();
        reflectSome(sender, a, 5);
        c.stopSessions(0);
    }

    @Test
    void shouldReflectOverIpv6Loopback() throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        Assumptions.assumeTrue(ipv6LoopbackWorks(), "no IPv6 loopback on this host");
        EmbeddedServer s = server(EmbeddedServer.options().listen("::1", 0));
        HandBuiltSender sender = new HandBuiltSender(1, null, null, 0, v6);
        toClose.add(sender);
        ControlClient c = ControlClient.connect(ControlClientOptions.of("::1", s.port()).readTimeoutMs(IO_TIMEOUT_MS));
        toClose.add(c);
        long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
        SessionAcceptance a = c.requestSession(SessionRequest.forTwping(6, v6, sender.address().getPort(), v6, 0, 0,
                now, NtpTime.ONE_SECOND, 0));
        assertEquals(0x00000001, ByteBuffer.wrap(a.sid()).getInt(0), "SID starts with the last 4 bytes of ::1");
        c.startSessions();
        sender.send(sender.build(3, 1, 1, 0), new InetSocketAddress(v6, a.port()));
        assertEquals(3, sender.receive().senderSeq());
    }

    private static boolean ipv6LoopbackWorks() {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("::1"))) {
            return probe.getLocalPort() > 0;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void shouldStopReflectingWhenControlConnectionCloses() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlClient c = client(s, Mode.OPEN.bits(), null, null);
        HandBuiltSender sender = sender(1);
        SessionAcceptance a = c.requestSession(request(sender.address(), 0));
        c.startSessions();
        reflectSome(sender, a, 2);
        c.close();
        waitUntil(() -> s.activeConnections() == 0, "connection released");
        sender.send(sender.build(9, 1, 1, 0), new InetSocketAddress(LOOPBACK, a.port()));
        assertNull(sender.poll(300), "reflector stopped with its control connection");
    }

    @Test
    void shouldCloseControlConnectionControlTimeoutAfterRefwait() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options().testTimeoutMs(1000).controlTimeoutMs(1500));
        HandBuiltSender sender = sender(1);
        ControlClient c = client(s, Mode.OPEN.bits(), null, null);
        SessionAcceptance a = c.requestSession(request(sender.address(), 0));
        c.startSessions();
        reflectSome(sender, a, 1);
        assertEquals(ControlActivity.PEER_CLOSED, c.awaitActivity(TimeUnit.SECONDS.toNanos(WAIT_SECONDS)));
        waitUntil(() -> logBytes.toString(StandardCharsets.UTF_8).contains("REFWAIT timeout"), "REFWAIT logged");
    }

    @Test
    void shouldIsolateConnections() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlClient good = client(s, Mode.OPEN.bits(), null, null);
        ControlClient bad = client(s, Mode.OPEN.bits(), null, null);
        HandBuiltSender goodSender = sender(1);
        HandBuiltSender badSender = sender(1);
        SessionAcceptance ga = good.requestSession(request(goodSender.address(), 0));
        SessionAcceptance ba = bad.requestSession(request(badSender.address(), 0));
        good.startSessions();
        bad.startSessions();
        bad.close();
        waitUntil(() -> s.activeConnections() == 1, "bad connection released");
        reflectSome(goodSender, ga, 3);
        assertTrue(ga.port() != ba.port());
    }

    @Test
    void shouldRefuseOpenModeWhenLimitsDisallowIt() throws Exception {
        LimitsConfig limits = LimitsConfig.parse("t.limits",
                "limit root with allow_open_mode=off\nassign default root\n");
        EmbeddedServer s = server(EmbeddedServer.options().limits(limits));
        assertThrows(ControlException.class, () -> client(s, Mode.OPEN.bits(), null, null));
        ControlClient c = client(s, Mode.MIXED.bits(), "alice", SECRET);
        assertEquals(Mode.MIXED, c.mode());
    }

    @Test
    void shouldRejectUnknownUser() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlException e = assertThrows(ControlException.class,
                () -> client(s, Mode.ENCRYPTED.bits(), "bob", SECRET));
        assertEquals(AcceptCode.REJECT.code(), e.acceptCode(), e.getMessage());
    }

    @Test
    void shouldRejectWrongPassphrase() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlException e = assertThrows(ControlException.class,
                () -> client(s, Mode.AUTHENTICATED.bits(), "alice", "wrong-passphrase".getBytes()));
        assertEquals(AcceptCode.REJECT.code(), e.acceptCode(), e.getMessage());
    }

    @Test
    void shouldEnforceTestSessionsLimit() throws Exception {
        LimitsConfig limits = LimitsConfig.parse("t.limits", "limit root with test_sessions=1\nassign default root\n");
        EmbeddedServer s = server(EmbeddedServer.options().limits(limits));
        ControlClient c = client(s, Mode.OPEN.bits(), null, null);
        HandBuiltSender sender = sender(1);
        assertEquals(0, c.requestSession(request(sender.address(), 0)).acceptCode());
        ControlException e = assertThrows(ControlException.class, () -> c.requestSession(request(sender.address(), 0)));
        assertEquals(AcceptCode.REJECT.code(), e.acceptCode());
    }

    @Test
    void shouldUseRequestedPortInsideTestportsElseOneFromTheRange() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options().testPorts(28760, 28799));
        ControlClient c = client(s, Mode.OPEN.bits(), null, null);
        HandBuiltSender sender = sender(1);
        long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
        SessionAcceptance inside = c.requestSession(SessionRequest.forTwping(4, LOOPBACK, sender.address().getPort(),
                LOOPBACK, 28777, 0, now, NtpTime.ONE_SECOND, 0));
        assertEquals(28777, inside.port());
        SessionAcceptance outside = c.requestSession(SessionRequest.forTwping(4, LOOPBACK,
                sender.address().getPort(), LOOPBACK, 5000, 0, now, NtpTime.ONE_SECOND, 0));
        assertTrue(outside.port() >= 28760 && outside.port() <= 28799, "port " + outside.port());
    }

    /** Binds every port of [base, base + count) on loopback, or returns null when one of them is taken. */
    private static List<DatagramSocket> holdPorts(int base, int count) {
        List<DatagramSocket> held = new ArrayList<>();
        try {
            for (int p = base; p < base + count; p++) {
                held.add(new DatagramSocket(new InetSocketAddress(LOOPBACK, p)));
            }
            return held;
        } catch (SocketException e) {
            held.forEach(DatagramSocket::close);
            return null;
        }
    }

    /** A free block of {@code count} ports from a few candidates, held by the test (closed after it). */
    private List<DatagramSocket> freeBlock(int count) {
        for (int base = 28900; base < 29900; base += 50) {
            List<DatagramSocket> held = holdPorts(base, count);
            if (held != null) {
                held.forEach(toClose::add);
                return held;
            }
        }
        throw new AssertionError("no free block of " + count + " loopback UDP ports in 28900-29900");
    }

    /** No free test port: Accept-Session 5 (temporary resource limit), and the connection stays up (issue 26, item 6). */
    @Test
    void shouldAnswerAccept5WhenNoTestPortIsFree() throws Exception {
        List<DatagramSocket> held = freeBlock(4);
        int low = held.get(0).getLocalPort();
        EmbeddedServer s = server(EmbeddedServer.options().testPorts(low, low + 3));
        ControlClient c = client(s, Mode.OPEN.bits(), null, null);
        HandBuiltSender sender = sender(1);
        for (int i = 0; i < 2; i++) {
            ControlException e = assertThrows(ControlException.class, () -> c.requestSession(request(sender.address(), 0)));
            assertEquals(AcceptCode.UNAVAILABLE_TEMP.code(), e.acceptCode());
        }
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("refused: no free test port"), logBytes::toString);
        held.get(2).close();
        SessionAcceptance a = c.requestSession(request(sender.address(), 0));
        assertEquals(0, a.acceptCode(), "a port freed is used again");
        assertEquals(low + 2, a.port());
    }

    /** One connection holds at most a quarter of testports; another connection still gets ports (issue 26, item 6). */
    @Test
    void shouldCapTheTestPortsOneConnectionHolds() throws Exception {
        List<DatagramSocket> held = freeBlock(8);
        int low = held.get(0).getLocalPort();
        held.forEach(DatagramSocket::close);
        EmbeddedServer s = server(EmbeddedServer.options().testPorts(low, low + 7));
        HandBuiltSender sender = sender(1);
        ControlClient greedy = client(s, Mode.OPEN.bits(), null, null);
        assertEquals(0, greedy.requestSession(request(sender.address(), 0)).acceptCode());
        assertEquals(0, greedy.requestSession(request(sender.address(), 0)).acceptCode());
        ControlException e = assertThrows(ControlException.class,
                () -> greedy.requestSession(request(sender.address(), 0)));
        assertEquals(AcceptCode.UNAVAILABLE_TEMP.code(), e.acceptCode());
        ControlClient other = client(s, Mode.OPEN.bits(), null, null);
        assertEquals(0, other.requestSession(request(sender.address(), 0)).acceptCode());
    }

    @Test
    void shouldCloseIdleConnectionAfterControlTimeout() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options().controlTimeoutMs(300));
        try (Socket raw = new Socket(LOOPBACK, s.port())) {
            raw.setSoTimeout(IO_TIMEOUT_MS);
            InputStream in = raw.getInputStream();
            assertEquals(64, in.readNBytes(64).length, "greeting");
            assertEquals(-1, in.read(), "closed by the server after controltimeout");
        }
        waitUntil(() -> s.activeConnections() == 0, "connection released");
    }

    @Test
    void shouldSurviveGarbageAndServeTheNextClient() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options().controlTimeoutMs(2000));
        try (Socket raw = new Socket(LOOPBACK, s.port())) {
            raw.setSoTimeout(IO_TIMEOUT_MS);
            InputStream in = raw.getInputStream();
            in.readNBytes(64);
            byte[] junk = new byte[400];
            new Random(1).nextBytes(junk);
            raw.getOutputStream().write(junk);
            raw.getOutputStream().flush();
            try {
                while (in.read() >= 0) {
                    // drain whatever the server answers until it closes
                }
            } catch (SocketException reset) {
                // a reset is a close too
            }
        }
        ControlClient c = client(s, Mode.OPEN.bits(), null, null);
        HandBuiltSender sender = sender(1);
        SessionAcceptance a = c.requestSession(request(sender.address(), 0));
        c.startSessions();
        reflectSome(sender, a, 2);
    }

    @Test
    void shouldBoundConcurrentConnectionsAndStillServeAWellBehavedClient() throws Exception {
        // The control timeout outlasts the flood, so no flood connection ends before the client closes it: the
        // server must hold exactly 20 and refuse exactly 180, however long accepting them takes under load.
        EmbeddedServer s = server(EmbeddedServer.options().maxControlSessions(20).controlTimeoutMs(600_000));
        List<Socket> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket raw = new Socket();
                raw.connect(new InetSocketAddress(LOOPBACK, s.port()), IO_TIMEOUT_MS);
                flood.add(raw);
            }
            waitUntil(() -> s.activeConnections() + s.refusedConnections() >= 200, "all 200 handled");
            assertEquals(20, s.activeConnections(), "active");
            assertEquals(180, s.refusedConnections(), "refused");
            assertEquals(0, s.servedConnections(), "no flood connection ended before its client closed it");
        } finally {
            for (Socket raw : flood) {
                raw.close();
            }
        }
        waitUntil(() -> s.activeConnections() == 0, "flood released");
        ControlClient c = client(s, Mode.OPEN.bits(), null, null);
        HandBuiltSender sender = sender(1);
        SessionAcceptance a = c.requestSession(request(sender.address(), 0));
        c.startSessions();
        reflectSome(sender, a, 3);
    }

    @Test
    void shouldServeWhileManyIdleConnectionsAreOpen() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket raw = new Socket();
                raw.connect(new InetSocketAddress(LOOPBACK, s.port()), IO_TIMEOUT_MS);
                idle.add(raw);
            }
            ControlClient c = client(s, Mode.OPEN.bits(), null, null);
            HandBuiltSender sender = sender(1);
            SessionAcceptance a = c.requestSession(request(sender.address(), 0));
            c.startSessions();
            reflectSome(sender, a, 3);
        } finally {
            for (Socket raw : idle) {
                raw.close();
            }
        }
    }

    @Test
    void shouldLogConnectionAndSessionLines() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlClient c = client(s, Mode.MIXED.bits(), "alice", SECRET);
        HandBuiltSender sender = sender(8);
        SessionAcceptance a = c.requestSession(request(sender.address(), 0));
        c.startSessions();
        reflectSome(sender, a, 4);
        c.stopSessions(0);
        waitUntil(() -> logBytes.toString(StandardCharsets.UTF_8).contains("reflected 4"), "session end line");
        String text = logBytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("mode M, user alice"), text);
        assertTrue(!text.contains(new String(SECRET, StandardCharsets.US_ASCII)), "pass-phrase never logged");
    }

    private static void waitUntil(BooleanSupplier condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.onSpinWait();
            Thread.sleep(5); // polling interval of a condition wait with a deadline
        }
    }
}
