package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.protocol.Mode;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** ControlClient against ControlServerConnection over loopback TCP. */
class ControlLoopbackTest {
    private static final byte[] ALICE = "alice".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PASS = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);

    static ControlClientOptions options(int port, Mode mode) {
        return ControlClientOptions.of("127.0.0.1", port).requestedModes(mode.bits())
                .identity(ALICE, PASS).connectTimeoutMs(30_000).readTimeoutMs(60_000);
    }

    static SessionRequest request(InetAddress sender, InetAddress receiver, int typeP) {
        return SessionRequest.forTwping(4, sender, 9252, receiver, 9252, 64, 0xeeb7dd61cc783169L,
                0x00000002005faebcL, typeP);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRunWholeSessionInEveryMode(Mode mode) throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            InetAddress lo = InetAddress.getByName("127.0.0.1");
            byte[] sid;
            try (ControlClient client = ControlClient.connect(options(server.port(), mode))) {
                assertEquals(mode, client.mode());
                assertEquals(LoopbackServer.START_TIME_NTP, client.serverStartTimeNtp());
                assertTrue(client.rttBoundNtp() >= 0);
                SessionRequest sent = request(lo, lo, 0x2e000000);
                SessionAcceptance acceptance = client.requestSession(sent);
                assertEquals(0, acceptance.acceptCode());
                assertEquals(18760, acceptance.port());
                sid = acceptance.sid();
                assertEquals(0x7f, sid[0] & 0xFF); // receiver address leads the SID
                assertEquals(List.of(sent), server.requests);
                // Both ends see the same control session keys (for the test-session keys), none in Open mode.
                assertEquals(List.of(String.valueOf(client.deriveFromSessionKeys(LoopbackServer::keysHex))),
                        server.sessionKeys);
                assertEquals(mode.protectsControl(), !server.sessionKeys.getFirst().equals("null"));
                client.startSessions();
                assertEquals(1, server.starts);
                assertEquals(ControlActivity.QUIET, client.awaitActivity(20_000_000L));
                client.stopSessions(2);
                // A second request on the same connection works after Stop-Sessions.
                assertEquals(0, client.requestSession(sent).acceptCode());
            }
            assertEquals(ControlCloseReason.PEER_CLOSED, server.awaitClosed());
            assertEquals(null, server.lastPeer.deriveFromSessionKeys(LoopbackServer::keysHex), "keys wiped at close");
            assertEquals(List.of(2), server.stops);
            assertEquals(16, sid.length);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldSubstituteZeroAddressesWithControlAddresses(Mode mode) throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS);
             ControlClient client = ControlClient.connect(options(server.port(), mode))) {
            client.requestSession(request(null, null, 0));
            SessionRequest seen = server.requests.getFirst();
            assertEquals(client.localAddress().getAddress(), seen.senderAddress());
            assertEquals(client.remoteAddress().getAddress(), seen.receiverAddress());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRefuseUnsupportedTypePWithAccept3(Mode mode) throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS);
             ControlClient client = ControlClient.connect(options(server.port(), mode))) {
            InetAddress lo = InetAddress.getByName("127.0.0.1");
            ControlException e = assertThrows(ControlException.class,
                    () -> client.requestSession(request(lo, lo, 0x40000000)));
            assertEquals(List.of("Server denied test: 127.0.0.1"), e.lines());
            assertEquals(ControlStage.SESSION, e.stage());
            assertEquals(3, e.acceptCode());
            assertTrue(server.requests.isEmpty(), "invalid requests never reach the handler");
            // The connection stays usable.
            assertEquals(0, client.requestSession(request(lo, lo, 0)).acceptCode());
        }
    }

    @Test
    void shouldRefuseInvalidRequestFieldsWithAccept3() throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        List<SessionRequest> invalid = List.of(
                new SessionRequest(4, 1, 0, 0, 0, lo, 1, lo, 1, null, 0, 0, 0, 0),
                new SessionRequest(4, 0, 1, 0, 0, lo, 1, lo, 1, null, 0, 0, 0, 0),
                new SessionRequest(4, 0, 0, 1, 0, lo, 1, lo, 1, null, 0, 0, 0, 0),
                new SessionRequest(4, 0, 0, 0, 5, lo, 1, lo, 1, null, 0, 0, 0, 0),
                new SessionRequest(5, 0, 0, 0, 0, null, 1, null, 1, null, 0, 0, 0, 0),
                new SessionRequest(6, 0, 0, 0, 0, null, 1, null, 1, null, 0, 0, 0, 0), // v6 over a v4 connection
                new SessionRequest(4, 0, 0, 0, 0, lo, 1, lo, 1, null, 0, 0, 0, 0x2e000001));
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS);
             ControlClient client = ControlClient.connect(options(server.port(), Mode.ENCRYPTED))) {
            for (SessionRequest r : invalid) {
                ControlException e = assertThrows(ControlException.class, () -> client.requestSession(r), r.toString());
                assertEquals(3, e.acceptCode(), r.toString());
            }
            assertTrue(server.requests.isEmpty());
        }
    }

    @Test
    void shouldPassHandlerRefusalToClient() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            server.decider = r -> SessionAcceptance.refused(5);
            try (ControlClient client = ControlClient.connect(options(server.port(), Mode.AUTHENTICATED))) {
                InetAddress lo = InetAddress.getByName("127.0.0.1");
                ControlException e = assertThrows(ControlException.class, () -> client.requestSession(request(lo, lo, 0)));
                assertEquals(5, e.acceptCode());
                assertEquals(List.of("Server denied test: 127.0.0.1"), e.lines());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"AUTHENTICATED", "ENCRYPTED", "MIXED"})
    void shouldDenyUnknownUser(Mode mode) throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            ControlClientOptions o = options(server.port(), mode).identity("bob".getBytes(StandardCharsets.US_ASCII), PASS);
            ControlException e = assertThrows(ControlException.class, () -> ControlClient.connect(o));
            assertEquals(List.of("Server denied access: 127.0.0.1"), e.lines());
            assertEquals(ControlStage.OPEN_CONNECTION, e.stage());
            assertEquals(1, e.acceptCode());
            assertEquals("Unable to open control connection to 127.0.0.1:8620.", e.stage().finalLine("127.0.0.1:8620"));
            assertEquals(ControlCloseReason.UNKNOWN_IDENTITY, server.awaitClosed());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = {"AUTHENTICATED", "ENCRYPTED", "MIXED"})
    void shouldDenyWrongPassphrase(Mode mode) throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            ControlClientOptions o = options(server.port(), mode).identity(ALICE, "wrong-passphrase".getBytes(StandardCharsets.US_ASCII));
            ControlException e = assertThrows(ControlException.class, () -> ControlClient.connect(o));
            assertEquals(List.of("Server denied access: 127.0.0.1"), e.lines());
            assertEquals(ControlCloseReason.INVALID_TOKEN, server.awaitClosed());
        }
    }

    @Test
    void shouldDenyEmptyPassphraseWithoutFailing() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            ControlClientOptions o = options(server.port(), Mode.AUTHENTICATED).identity(ALICE, new byte[0]);
            ControlException e = assertThrows(ControlException.class, () -> ControlClient.connect(o));
            assertEquals(List.of("Server denied access: 127.0.0.1"), e.lines());
        }
    }

    @Test
    void shouldReportNoCommonModesWhenKeyedModeIsNotOffered() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.OPEN.bits())) {
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlClient.connect(options(server.port(), Mode.AUTHENTICATED)));
            assertEquals(List.of("OWPControlOpen: No Common Modes"), e.lines());
            assertEquals(ControlStage.OPEN_CONNECTION, e.stage());
            assertEquals(ControlCloseReason.PEER_CLOSED, server.awaitClosed());
        }
    }

    @Test
    void shouldDropKeyedModesWithoutIdentity() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            ControlClientOptions o = ControlClientOptions.of("127.0.0.1", server.port())
                    .requestedModes(Mode.ALL_BITS).readTimeoutMs(60_000);
            try (ControlClient client = ControlClient.connect(o)) {
                assertEquals(Mode.OPEN, client.mode());
            }
        }
    }

    @Test
    void shouldReportConnectionFailureWithoutLines() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ControlException e = assertThrows(ControlException.class,
                () -> ControlClient.connect(options(port, Mode.OPEN)));
        assertTrue(e.lines().isEmpty());
        assertEquals(ControlStage.OPEN_CONNECTION, e.stage());
    }

    @Test
    void shouldSeeServerClosingDuringTest() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS);
             ControlClient client = ControlClient.connect(options(server.port(), Mode.ENCRYPTED))) {
            InetAddress lo = InetAddress.getByName("127.0.0.1");
            client.requestSession(request(lo, lo, 0));
            client.startSessions();
            server.connection.get(60, TimeUnit.SECONDS).close();
            assertEquals(ControlCloseReason.CLOSED_LOCALLY, server.awaitClosed());
            assertEquals(ControlActivity.PEER_CLOSED, client.awaitActivity(60_000_000_000L));
        }
    }

    @Test
    void shouldReportLocalCloseToWatcher() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            ControlClient client = ControlClient.connect(options(server.port(), Mode.OPEN));
            CompletableFuture<ControlActivity> watched =
                    CompletableFuture.supplyAsync(() -> client.awaitActivity(-1));
            client.close();
            ControlActivity a = watched.get(60, TimeUnit.SECONDS);
            assertEquals(ControlActivity.LOCALLY_CLOSED, a);
        }
    }

    @Test
    void shouldCloseIdleConnectionAfterControlTimeout() throws Exception {
        try (LoopbackServer server = new LoopbackServer(Mode.ALL_BITS, Map.of(),
                new SecureRandom(), 200);
             ControlClient client = ControlClient.connect(options(server.port(), Mode.OPEN))) {
            assertEquals(ControlCloseReason.TIMEOUT, server.awaitClosed());
            assertEquals(ControlActivity.PEER_CLOSED, client.awaitActivity(60_000_000_000L));
        }
    }

    @Test
    void shouldStayClosedAfterRepeatedClose() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            ControlClient client = ControlClient.connect(options(server.port(), Mode.ENCRYPTED));
            client.close();
            client.close();
            assertEquals(ControlActivity.LOCALLY_CLOSED, client.awaitActivity(1_000_000L));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void shouldRunIpv6SessionWithSubstitutedAddresses(Mode mode) throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        try (LoopbackServer server = new LoopbackServer(v6, Mode.ALL_BITS,
                Map.of("alice", PASS), new SecureRandom(), 10_000);
             ControlClient client = ControlClient.connect(ControlClientOptions.of("::1", server.port())
                     .requestedModes(mode.bits()).identity(ALICE, PASS).readTimeoutMs(60_000))) {
            assertEquals("::1", client.serverIp());
            SessionAcceptance a = client.requestSession(
                    SessionRequest.forTwping(6, null, 9000, null, 9000, 0, 0, 0, 0));
            assertEquals(0, a.acceptCode());
            assertEquals(1, a.sid()[3]); // last 4 bytes of ::1
            SessionRequest seen = server.requests.getFirst();
            assertEquals(v6, seen.senderAddress());
            assertEquals(v6, seen.receiverAddress());
            ControlException e = assertThrows(ControlException.class, () -> client.requestSession(
                    request(InetAddress.getByName("127.0.0.1"), null, 0)));
            assertEquals(3, e.acceptCode(), "IPv4 test addresses over an IPv6 control connection");
        }
    }

    @Test
    void shouldHonourIpv4OnlyAndIpv6OnlyAddressSelection() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            List<InetAddress> both = List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1"));
            // IPv6 is tried first, but nothing listens on ::1 at this port, so 127.0.0.1 is used.
            try (ControlClient c = ControlClient.connect(options(server.port(), Mode.OPEN).addresses(both))) {
                assertEquals(InetAddress.getByName("127.0.0.1"), c.remoteAddress().getAddress());
            }
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlClient.connect(options(server.port(), Mode.OPEN).addresses(both).ipv6Only(true)));
            assertTrue(e.lines().isEmpty());
        }
    }

    @Test
    void shouldReportUnresolvableHost() {
        ControlException e = assertThrows(ControlException.class,
                // A malformed literal fails inside the JDK resolver: no DNS traffic leaves the machine.
                () -> ControlClient.connect(ControlClientOptions.of("[::1", 862)));
        assertEquals(List.of("getaddrinfo(): Name or service not known"), e.lines());
    }
}
