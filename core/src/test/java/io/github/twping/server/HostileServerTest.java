package io.github.twping.server;

import io.github.twping.testsupport.Wait;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.control.ControlClient;
import io.github.twping.control.ControlClientOptions;
import io.github.twping.control.ControlException;
import io.github.twping.control.SessionAcceptance;
import io.github.twping.control.SessionRequest;
import io.github.twping.protocol.AcceptCode;
import io.github.twping.protocol.Mode;
import io.github.twping.session.HandBuiltSender;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import io.github.twping.crypto.TestSessionKeys;
import java.io.UncheckedIOException;

/** Misbehaving peers against the server: slow clients, log injection, accept failures (docs/SERVER.md). */
class HostileServerTest {
    private static final byte[] SECRET = "s3cr3t-lab-key".getBytes(StandardCharsets.US_ASCII);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);

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

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    /**
     * A client dribbling its Set-Up-Response one byte every 50 ms would need 8 s for the 164 bytes; with
     * {@code controltimeout} 1 s the server must close it long before (a deadline per message, not an
     * inactivity timer reset by every byte).
     */
    @Test
    void shouldCloseAClientSendingItsSetUpResponseByteByByteAtTheControlTimeout() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options().controlTimeoutMs(1000));
        int written = 0;
        try (Socket raw = new Socket(LOOPBACK, s.port())) {
            raw.setSoTimeout(10_000);
            InputStream in = raw.getInputStream();
            assertEquals(64, in.readNBytes(64).length, "greeting");
            OutputStream out = raw.getOutputStream();
            byte[] setUp = new byte[164];
            setUp[3] = 1; // mode open
            try {
                for (; written < setUp.length; written++) {
                    out.write(setUp[written]);
                    out.flush();
                    if (in.available() > 0 || serverClosed(s)) {
                        break;
                    }
                    Thread.sleep(50); // the slow client's pace (the behaviour under test)
                }
            } catch (SocketException closedByServer) {
                // a reset after the server closed: what we are waiting for
            }
            Wait.until(() -> serverClosed(s), "server closed the slow client");
        }
        assertTrue(written < 164, "server waited for all " + written + " bytes");
    }

    private static boolean serverClosed(EmbeddedServer s) {
        return s.activeConnections() == 0;
    }

    /** A KeyID with a newline and an ESC sequence is logged escaped: no forged line, no raw control byte. */
    @Test
    void shouldEscapePeerSuppliedIdentityInTheLog() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        byte[] evil = "ev\ntwampd[1]: forged\u001b[31m".getBytes(StandardCharsets.US_ASCII);
        ControlClientOptions o = ControlClientOptions.of(LOOPBACK.getHostAddress(), s.port())
                .requestedModes(Mode.AUTHENTICATED.bits()).readTimeoutMs(5000).connectTimeoutMs(5000)
                .identity(evil, SECRET);
        assertThrows(ControlException.class, () -> {
            try (ControlClient c = ControlClient.connect(o)) {
                c.mode();
            }
        });
        Wait.until(() -> log().contains("unknown"), "unknown-identity line");
        String text = log();
        assertFalse(text.contains("\u001b"), text);
        for (String line : text.split("\n", -1)) {
            assertFalse(line.startsWith("twampd[1]"), "forged line: " + line);
        }
        assertTrue(text.contains("ev\\x0atwampd[1]: forged\\x1b[31m"), text);
    }

    @Test
    void shouldEscapeControlCharactersAndBackslashes() {
        assertEquals("plain [::1]:862", ServerLog.escape("plain [::1]:862"));
        assertEquals("a\\x0ab\\x0d\\x1b\\x7f\\\\c\\x85", ServerLog.escape("a\nb\r\u001b\u007f\\c\u0085"));
        assertEquals("\u00e9\u0416", ServerLog.escape("\u00e9\u0416"));
    }

    /**
     * accept() failing at the fd limit leaves the connection in the backlog, so the loop must back off
     * instead of spinning: 40 failures take at least the sum of the delays (1, 2, 4 ... 100 ms), and the
     * log gets one line for them plus one when accepting works again, not one per failure.
     */
    @Test
    void shouldBackOffAndLogOncePerIntervalWhileAcceptFails() throws Exception {
        int failures = 40;
        AtomicInteger calls = new AtomicInteger();
        long[] firstAndLast = new long[2];
        ServerConfig config = ServerConfig.builder().listen("127.0.0.1", 0).build();
        TwampServer server = new TwampServer(config, socket -> new ServedConnection() {
            @Override
            public String serve() {
                close();
                return "test";
            }

            @Override
            public void close() {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // test double
                }
            }
        }, new ServerLog(log, true));
        server.socketFactory(() -> {
            try {
                return new ServerSocket() {
                    @Override
                    public Socket accept() throws IOException {
                        int n = calls.incrementAndGet();
                        if (n == 1) {
                            firstAndLast[0] = System.nanoTime();
                        }
                        if (n <= failures) {
                            firstAndLast[1] = System.nanoTime();
                            throw new IOException("Too many open files");
                        }
                        return super.accept();
                    }
                };
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        toClose.add(server);
        server.start();
        Wait.until(() -> calls.get() > failures, "accept to be retried after the failures");
        try (Socket ok = new Socket(LOOPBACK, server.port())) {
            Wait.until(() -> server.servedConnections() == 1, "a connection served after recovery");
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(firstAndLast[1] - firstAndLast[0]);
        // 1+2+4+...+64 then 100 ms each: the 39 waits between the 40 failures add up to > 3 s.
        assertTrue(elapsedMs >= 3000, "40 failed accepts within " + elapsedMs + " ms: no back-off");
        long acceptLines = log().lines().filter(l -> l.contains("accept()")).count();
        assertEquals(2, acceptLines, log());
        assertTrue(log().contains("accepting again after 40 failed attempts"), log());
    }

    private ControlClient client(EmbeddedServer s, int modes) throws Exception {
        ControlClientOptions o = ControlClientOptions.of(LOOPBACK.getHostAddress(), s.port())
                .requestedModes(modes).readTimeoutMs(5000).connectTimeoutMs(5000);
        if (modes != Mode.OPEN.bits()) {
            o.identity("alice".getBytes(StandardCharsets.US_ASCII), SECRET);
        }
        ControlClient c = ControlClient.connect(o);
        toClose.add(c);
        return c;
    }

    private HandBuiltSender sender(int mode) throws Exception {
        HandBuiltSender h = new HandBuiltSender(mode, null, null);
        toClose.add(h);
        return h;
    }

    private static SessionRequest request(InetAddress senderAddress, int senderPort, int padding) {
        long now = NtpTime.fromEpochNanos(WallClock.system().nowEpochNs());
        return SessionRequest.forTwping(4, senderAddress, senderPort, LOOPBACK, 0, padding, now,
                NtpTime.ONE_SECOND * 2, 0);
    }

    private static int acceptCode(ControlClient c, SessionRequest r) throws Exception {
        try {
            return c.requestSession(r).acceptCode();
        } catch (ControlException e) {
            return e.acceptCode();
        }
    }

    @Test
    void shouldRefusePaddingAboveMaxpaddingAndCountIt() throws Exception {
        assertEquals(9000, ServerConfig.defaults().maxPadding(), "twampd's default");
        assertEquals(1024, ServerConfig.defaults().maxSessions(), "twampd's default");
        assertFalse(ServerConfig.defaults().anySender(), "twampd's default");
        EmbeddedServer s = server(EmbeddedServer.options().maxPadding(ServerConfig.DEFAULT_MAX_PADDING));
        ControlClient c = client(s, Mode.OPEN.bits());
        InetSocketAddress me = sender(1).address();
        assertEquals(AcceptCode.UNSUPPORTED.code(), acceptCode(c, request(me.getAddress(), me.getPort(),
                ServerConfig.DEFAULT_MAX_PADDING + 1)));
        assertEquals(AcceptCode.UNSUPPORTED.code(), acceptCode(c, request(me.getAddress(), me.getPort(), 65_000)));
        assertEquals(AcceptCode.ACCEPT.code(), acceptCode(c, request(me.getAddress(), me.getPort(),
                ServerConfig.DEFAULT_MAX_PADDING)));
        assertTrue(log().contains("refused: padding 65000 above maxpadding 9000 (2 refused so far)"), log());

        EmbeddedServer big = server(EmbeddedServer.options()); // in-process default: up to 65000
        ControlClient c2 = client(big, Mode.OPEN.bits());
        assertEquals(AcceptCode.ACCEPT.code(), acceptCode(c2, request(me.getAddress(), me.getPort(), 65_000)));
    }

    /** A sender address other than the control peer would make the reflector answer a third party. */
    @Test
    void shouldRefuseASenderAddressOtherThanTheControlPeerUnlessAnysender() throws Exception {
        InetAddress other = InetAddress.getByName("127.0.0.2"); // loopback, never sent to: the session is refused
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlClient c = client(s, Mode.OPEN.bits());
        assertEquals(AcceptCode.REJECT.code(), acceptCode(c, request(other, 40000, 0)));
        assertTrue(log().contains("refused: sender address 127.0.0.2 is not the control peer (anysender not set; 1"
                + " refused so far)"), log());
        InetSocketAddress me = sender(1).address();
        assertEquals(AcceptCode.ACCEPT.code(), acceptCode(c, request(me.getAddress(), me.getPort(), 0)));

        EmbeddedServer open = server(EmbeddedServer.options().anySender(true));
        ControlClient c2 = client(open, Mode.OPEN.bits());
        assertEquals(AcceptCode.ACCEPT.code(), acceptCode(c2, request(other, 40000, 0)));
    }

    /** {@code maxsessions} bounds the sessions of all connections together; a closed connection returns its share. */
    @Test
    void shouldCapSessionsServerWideAndReleaseThemWithTheConnection() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options().maxSessions(3));
        InetSocketAddress me = sender(1).address();
        ControlClient a = client(s, Mode.OPEN.bits());
        ControlClient b = client(s, Mode.OPEN.bits());
        assertEquals(0, acceptCode(a, request(me.getAddress(), me.getPort(), 0)));
        assertEquals(0, acceptCode(a, request(me.getAddress(), me.getPort(), 0)));
        assertEquals(0, acceptCode(b, request(me.getAddress(), me.getPort(), 0)));
        assertEquals(AcceptCode.UNAVAILABLE_TEMP.code(), acceptCode(b, request(me.getAddress(), me.getPort(), 0)));
        assertTrue(log().contains("refused: maxsessions (3) reached (1 refused so far)"), log());
        a.close();
        Wait.until(() -> {
            try {
                return acceptCode(b, request(me.getAddress(), me.getPort(), 0)) == 0;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "a slot freed by the closed connection");
    }

    /** After REFWAIT the reflector's UDP port is free again although the control connection stays open. */
    @Test
    void shouldFreeTheReflectorPortAtRefwait() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options().testTimeoutMs(300).controlTimeoutMs(60_000));
        ControlClient c = client(s, Mode.OPEN.bits());
        InetSocketAddress me = sender(1).address();
        SessionAcceptance a = c.requestSession(request(me.getAddress(), me.getPort(), 0));
        c.startSessions();
        Wait.until(() -> log().contains("REFWAIT"), "REFWAIT");
        Wait.until(() -> {
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(LOOPBACK, a.port()))) {
                return true;
            } catch (SocketException stillBound) {
                return false;
            }
        }, "reflector port " + a.port() + " released while the control connection is open");
        assertEquals(1, s.activeConnections());
    }

    /** With verbose, a flood of forged packets gives one Invalid HMAC line per interval, not one per packet. */
    @Test
    void shouldRateLimitBadHmacLinesPerSession() throws Exception {
        EmbeddedServer s = server(EmbeddedServer.options());
        ControlClient c = client(s, Mode.AUTHENTICATED.bits());
        HandBuiltSender probe = new HandBuiltSender(2, null, null);
        InetSocketAddress me = probe.address();
        SessionAcceptance a = c.requestSession(request(me.getAddress(), me.getPort(), 0));
        TestSessionKeys keys = c.deriveFromSessionKeys(
                (aes, hmac) -> TestSessionKeys.derive(a.sid(), aes, hmac));
        probe.close();
        HandBuiltSender h = new HandBuiltSender(2, keys.aesKey(), keys.hmacKey(), me.getPort());
        toClose.add(h);
        c.startSessions();
        byte[] forged = new byte[48];
        InetSocketAddress reflector = new InetSocketAddress(LOOPBACK, a.port());
        for (int i = 0; i < 200; i++) {
            forged[0] = (byte) i;
            h.send(forged, reflector);
        }
        h.send(h.build(0, 0xE000_0000_0000_0000L, 1, 0), reflector);
        assertTrue(h.receive().hmacOk(), "a genuine packet after the forged ones is answered");
        c.stopSessions(0);
        Wait.until(() -> log().contains("bad HMAC 200"), "session end line with the bad-HMAC count");
        long lines = log().lines().filter(l -> l.contains("Invalid HMAC")).count();
        assertTrue(lines >= 1 && lines <= 2, lines + " Invalid HMAC lines:\n" + log());
    }

}
