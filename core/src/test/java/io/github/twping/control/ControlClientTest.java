package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.control.FakeServer.AwaitClose;
import io.github.twping.control.FakeServer.Expect;
import io.github.twping.control.FakeServer.Send;
import io.github.twping.control.FakeServer.Step;
import io.github.twping.crypto.ControlVectors;
import io.github.twping.crypto.ControlVectors.Segment;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.RequestTwSession;
import io.github.twping.protocol.ServerGreeting;
import io.github.twping.protocol.SetUpResponse;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.github.twping.crypto.KeyDerivation;
import io.github.twping.crypto.Token;
import java.net.InetAddress;
import java.util.Arrays;

/** ControlClient against a scripted server: recorded 5.2.3 server bytes and malformed servers. */
class ControlClientTest {
    private static final byte[] ALICE = "alice".getBytes(StandardCharsets.US_ASCII);

    private static ControlClientOptions options(int port, int modes) {
        return ControlClientOptions.of("127.0.0.1", port).requestedModes(modes)
                .identity(ALICE, ControlVectors.ALICE_PASSPHRASE).connectTimeoutMs(30_000).readTimeoutMs(60_000);
    }

    /** The recorded client script: the same request parameters and random values as the C client used. */
    @ParameterizedTest
    @ValueSource(strings = {"open", "auth", "enc", "mixed"})
    void shouldReproduceRecordedClientBytesAgainstRecordedServer(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        List<Step> script = new ArrayList<>();
        for (Segment s : segs) {
            script.add(s.clientToServer() ? new Expect(s.bytes().length) : new Send(s.bytes()));
        }
        script.add(new AwaitClose());
        int modeBits = new SetUpResponse().wrap(MemorySegment.ofArray(segs.get(1).bytes())).mode();
        Mode mode = Mode.fromBits(modeBits);
        ScriptedRandom random;
        byte[] requestPlain;
        Map<String, String> v = name.equals("open") ? Map.of() : ControlVectors.verify(name);
        if (mode.protectsControl()) {
            random = new ScriptedRandom(ControlVectors.hex(v.get("aes_session_key")),
                    ControlVectors.hex(v.get("hmac_key")), ControlVectors.hex(v.get("client_iv")));
            requestPlain = Arrays.copyOf(ControlVectors.hex(v.get("plain.5")), RequestTwSession.LENGTH);
        } else {
            random = new ScriptedRandom();
            requestPlain = segs.get(3).bytes();
        }
        SessionRequest recorded = SessionRequest.decode(new RequestTwSession().wrap(MemorySegment.ofArray(requestPlain)));
        try (FakeServer server = new FakeServer(script)) {
            SessionAcceptance acceptance;
            try (ControlClient client = ControlClient.connect(options(server.port(), Mode.ALL_BITS & ~0)
                    .requestedModes(modeBits).random(random))) {
                assertEquals(mode, client.mode());
                acceptance = client.requestSession(recorded);
                client.startSessions();
                client.stopSessions(0);
            }
            byte[] expected = ControlVectors.stream(segs, true);
            assertEquals(HexFormat.of().formatHex(expected), HexFormat.of().formatHex(server.received()));
            if (mode.protectsControl()) {
                assertEquals(Integer.parseInt(v.get("port")), acceptance.port());
                assertEquals(v.get("sid"), HexFormat.of().formatHex(acceptance.sid()));
            }
        }
    }

    private static ControlException openFailure(Step... steps) throws Exception {
        try (FakeServer server = FakeServer.of(steps)) {
            return assertThrows(ControlException.class, () -> ControlClient.connect(options(server.port(), Mode.ALL_BITS)));
        }
    }

    private static byte[] greeting(int modes) {
        byte[] g = new byte[64];
        g[15] = (byte) modes;
        g[51] = 4; // count 1024
        return g;
    }

    private static byte[] serverStart(int accept) {
        byte[] s = new byte[48];
        s[15] = (byte) accept;
        return s;
    }

    @Test
    void shouldFailWhenServerClosesBeforeGreeting() throws Exception {
        ControlException e = openFailure();
        assertEquals(List.of("Read failed: (Success)"), e.lines());
        assertEquals(ControlStage.OPEN_CONNECTION, e.stage());
    }

    @Test
    void shouldFailOnTruncatedGreeting() throws Exception {
        ControlException e = openFailure(new Send(new byte[30]));
        assertEquals(List.of("Read failed: (Success)"), e.lines());
    }

    @Test
    void shouldSendNothingWhenNoModesAreOffered() throws Exception {
        try (FakeServer server = FakeServer.of(new Send(greeting(0)), new AwaitClose())) {
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlClient.connect(options(server.port(), Mode.ALL_BITS)));
            assertEquals(List.of("OWPControlOpen: No Common Modes"), e.lines());
            assertEquals(0, server.received().length);
        }
    }

    /** A random source that fails the test when anything is drawn from it. */
    private static final class UntouchableRandom extends java.security.SecureRandom {
        private static final long serialVersionUID = 1L;

        @Override
        public synchronized void nextBytes(byte[] bytes) {
            throw new AssertionError("the open mode drew " + bytes.length + " random bytes");
        }
    }

    /**
     * The open mode draws no random bytes (no session keys, no Client-IV): the set-up creates no SecureRandom, whose
     * first use starts the JDK's security providers (docs/CLIENT.md, "Start-up"). The keyed modes draw their keys and
     * IV from the source given: the recorded replays above ({@code auth}, {@code enc}, {@code mixed}) check those bytes.
     */
    @Test
    void theOpenModeDrawsNothingFromTheRandomSource() throws Exception {
        try (FakeServer server = FakeServer.of(new Send(greeting(1)), new Expect(164), new Send(serverStart(0)),
                new AwaitClose());
             ControlClient client = ControlClient.connect(options(server.port(), Mode.OPEN.bits())
                     .random(new UntouchableRandom()))) {
            assertEquals(Mode.OPEN, client.mode());
        }
    }

    @Test
    void shouldFailWhenServerClosesAfterSetUpResponse() throws Exception {
        ControlException e = openFailure(new Send(greeting(1)), new Expect(164));
        assertEquals(List.of("Read failed:(Success)"), e.lines());
    }

    @Test
    void shouldReportDeniedAccess() throws Exception {
        ControlException e = openFailure(new Send(greeting(1)), new Expect(164), new Send(serverStart(3)));
        assertEquals(List.of("Server denied access: 127.0.0.1"), e.lines());
        assertEquals(3, e.acceptCode());
    }

    @Test
    void shouldReportDeniedAccessInKeyedModeWithClearRejection() throws Exception {
        ControlException e = openFailure(new Send(greeting(4)), new Expect(164), new Send(serverStart(1)));
        assertEquals(List.of("Server denied access: 127.0.0.1"), e.lines());
        assertEquals(1, e.acceptCode());
    }

    @Test
    void shouldReportInvalidAcceptValue() throws Exception {
        ControlException e = openFailure(new Send(greeting(1)), new Expect(164), new Send(serverStart(7)));
        assertEquals(List.of("GetAcceptType:Invalid val 7"), e.lines());
    }

    @Test
    void shouldFailOnTruncatedServerStart() throws Exception {
        ControlException e = openFailure(new Send(greeting(1)), new Expect(164),
                new Send(Arrays.copyOf(serverStart(0), 32)));
        assertEquals(List.of("_OWPReadServerStart: Unable to read from socket."), e.lines());
    }

    @Test
    void shouldRefuseAbsurdPbkdf2Count() throws Exception {
        byte[] g = greeting(4);
        g[48] = (byte) 0x80; // 2^31
        g[51] = 0;
        ControlException e = openFailure(new Send(g));
        assertEquals(List.of("OWPControlOpen: Invalid PBKDF2 count 2147483648"), e.lines());
    }

    @Test
    void shouldHonourReadTimeout() throws Exception {
        try (FakeServer server = FakeServer.of(new AwaitClose())) {
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlClient.connect(options(server.port(), Mode.ALL_BITS).readTimeoutMs(100)));
            assertEquals(List.of("Timed out after 0.1 s (--timeout) waiting for the Server-Greeting",
                    "Read failed: (Connection timed out)"), e.lines());
        }
    }

    private static ControlException sessionFailure(Step... afterSetUp) throws Exception {
        List<Step> script = new ArrayList<>(List.of(new Send(greeting(1)), new Expect(164), new Send(serverStart(0)),
                new Expect(112)));
        script.addAll(List.of(afterSetUp));
        try (FakeServer server = new FakeServer(script);
             ControlClient client = ControlClient.connect(options(server.port(), Mode.OPEN.bits()))) {
            return assertThrows(ControlException.class, () -> {
                client.requestSession(ControlLoopbackTest.request(null, null, 0));
                client.startSessions();
            });
        }
    }

    private static byte[] acceptSession(int accept) {
        byte[] a = new byte[48];
        a[0] = (byte) accept;
        a[2] = 0x4d;
        a[3] = (byte) 0xd9;
        return a;
    }

    @Test
    void shouldReportDeniedTest() throws Exception {
        ControlException e = sessionFailure(new Send(acceptSession(1)));
        assertEquals(List.of("Server denied test: 127.0.0.1"), e.lines());
        assertEquals(ControlStage.SESSION, e.stage());
        assertEquals("Session Failed!", e.stage().finalLine("x"));
    }

    @Test
    void shouldReportInvalidAcceptInAcceptSession() throws Exception {
        ControlException e = sessionFailure(new Send(acceptSession(6)));
        assertEquals(List.of("GetAcceptType:Invalid val 6"), e.lines());
    }

    @Test
    void shouldFailOnTruncatedAcceptSession() throws Exception {
        ControlException e = sessionFailure(new Send(new byte[20]));
        assertEquals(List.of("_OWPReadAcceptSession:Unable to read from socket."), e.lines());
    }

    @Test
    void shouldFailOnMissingStartAck() throws Exception {
        ControlException e = sessionFailure(new Send(acceptSession(0)), new Expect(32));
        assertEquals(List.of("_OWPReadStartAck: Unable to read from socket."), e.lines());
    }

    @Test
    void shouldFailOnRefusedStartAckWithoutLines() throws Exception {
        byte[] ack = new byte[32];
        ack[0] = 2;
        ControlException e = sessionFailure(new Send(acceptSession(0)), new Expect(32), new Send(ack));
        assertTrue(e.lines().isEmpty());
        assertEquals(2, e.acceptCode());
        assertEquals(ControlStage.SESSION, e.stage());
    }

    /** Recorded encrypted server bytes with one flipped bit in Accept-Session or Start-Ack. */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 6})
    void shouldDetectTamperedServerMessages(int segmentIndex) throws Exception {
        List<Segment> segs = ControlVectors.segments("enc");
        Map<String, String> v = ControlVectors.verify("enc");
        // Server-Start: only the Server-IV and the encrypted block are protected (bytes 16..47).
        int firstBit = segmentIndex == 2 ? 16 * 8 : 0;
        for (int bit = firstBit; bit < segs.get(segmentIndex).bytes().length * 8; bit += 37) {
            List<Step> script = new ArrayList<>();
            for (int i = 0; i < segs.size(); i++) {
                byte[] b = segs.get(i).bytes().clone();
                if (i == segmentIndex) {
                    b[bit / 8] ^= (byte) (1 << (bit % 8));
                }
                script.add(segs.get(i).clientToServer() ? new Expect(b.length) : new Send(b));
            }
            byte[] plain = Arrays.copyOf(ControlVectors.hex(v.get("plain.5")), RequestTwSession.LENGTH);
            SessionRequest recorded = SessionRequest.decode(new RequestTwSession().wrap(MemorySegment.ofArray(plain)));
            ScriptedRandom random = new ScriptedRandom(ControlVectors.hex(v.get("aes_session_key")),
                    ControlVectors.hex(v.get("hmac_key")), ControlVectors.hex(v.get("client_iv")));
            try (FakeServer server = new FakeServer(script);
                 ControlClient client = ControlClient.connect(options(server.port(), Mode.ENCRYPTED.bits()).random(random))) {
                ControlException e = assertThrows(ControlException.class, () -> {
                    client.requestSession(recorded);
                    client.startSessions();
                });
                String expected = segmentIndex == 6 ? "_OWPReadStartAck: Invalid HMAC" : "Invalid HMAC in Accept-Session message";
                assertEquals(List.of(expected), e.lines(), "bit " + bit);
                assertEquals(ControlStage.SESSION, e.stage());
            }
        }
    }

    @Test
    void shouldSeeDataFromServerDuringTest() throws Exception {
        try (FakeServer server = FakeServer.of(new Send(greeting(1)), new Expect(164), new Send(serverStart(0)),
                new Expect(112), new Send(acceptSession(0)), new Expect(32), new Send(new byte[32]),
                new Send(new byte[1]), new AwaitClose());
             ControlClient client = ControlClient.connect(options(server.port(), Mode.OPEN.bits()))) {
            client.requestSession(ControlLoopbackTest.request(null, null, 0));
            client.startSessions();
            assertEquals(ControlActivity.DATA_RECEIVED, client.awaitActivity(60_000_000_000L));
        }
    }

    @Test
    void shouldSendNothingToRecordedEncryptedOnlyServerWhenOpenIsRequested() throws Exception {
        List<Segment> segs = ControlVectors.segments("error-no-common-modes");
        try (FakeServer server = FakeServer.of(new Send(segs.get(0).bytes()), new AwaitClose())) {
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlClient.connect(options(server.port(), Mode.OPEN.bits())));
            assertEquals(List.of("OWPControlOpen: No Common Modes"), e.lines());
            assertEquals(0, server.received().length);
        }
    }

    /** The recorded wrong-pass-phrase run: same Set-Up-Response bytes, then "Server denied access". */
    @Test
    void shouldReproduceRecordedWrongPassphraseRun() throws Exception {
        List<Segment> segs = ControlVectors.segments("error-bad-passphrase");
        byte[] wrong = "wrong-passphrase".getBytes(StandardCharsets.US_ASCII);
        ServerGreeting g = new ServerGreeting().wrap(MemorySegment.ofArray(segs.get(0).bytes()));
        byte[] salt = new byte[16];
        g.copySaltTo(salt);
        // Recover the client's random keys from its own token (we know the pass-phrase it used).
        byte[] dk = KeyDerivation.pbkdf2HmacSha1(wrong, salt, (int) g.count());
        byte[] challenge = new byte[16];
        g.copyChallengeTo(challenge);
        byte[] token = new byte[64];
        SetUpResponse recorded = new SetUpResponse().wrap(MemorySegment.ofArray(segs.get(1).bytes()));
        recorded.copyTokenTo(token);
        byte[] aes = new byte[16];
        byte[] hmac = new byte[32];
        byte[] iv = new byte[16];
        assertTrue(Token.open(dk, token, challenge, aes, hmac));
        recorded.copyClientIvTo(iv);
        try (FakeServer server = FakeServer.of(new Send(segs.get(0).bytes()), new Expect(164),
                new Send(segs.get(2).bytes()), new AwaitClose())) {
            ControlException e = assertThrows(ControlException.class, () -> ControlClient.connect(
                    ControlClientOptions.of("127.0.0.1", server.port()).requestedModes(Mode.AUTHENTICATED.bits())
                            .identity(ALICE, wrong).readTimeoutMs(60_000).random(new ScriptedRandom(aes, hmac, iv))));
            assertEquals(List.of("Server denied access: 127.0.0.1"), e.lines());
            assertEquals(1, e.acceptCode());
            assertArrayEquals(segs.get(1).bytes(), server.received());
        }
    }
}
