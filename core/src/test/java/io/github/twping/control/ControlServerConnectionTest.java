package io.github.twping.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.crypto.ControlVectors;
import io.github.twping.crypto.ControlVectors.Segment;
import io.github.twping.protocol.AcceptCode;
import io.github.twping.protocol.AcceptSession;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.RequestTwSession;
import io.github.twping.protocol.ServerGreeting;
import io.github.twping.protocol.SetUpResponse;
import io.github.twping.protocol.StartSessions;
import io.github.twping.protocol.StopSessions;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import java.net.SocketException;

/** ControlServerConnection driven by recorded 5.2.3 client bytes and by malformed raw clients. */
class ControlServerConnectionTest {
    private static final Map<String, byte[]> ALICE = Map.of("alice", ControlVectors.ALICE_PASSPHRASE);

    /** Builds the server that reproduces a recording: same challenge, salt, Server-IV, start time, port and SID. */
    private static LoopbackServer recordedServer(String name, List<Segment> segs) throws Exception {
        ServerGreeting g = new ServerGreeting().wrap(MemorySegment.ofArray(segs.get(0).bytes()));
        byte[] challenge = new byte[16];
        byte[] salt = new byte[16];
        byte[] serverIv = new byte[16];
        g.copyChallengeTo(challenge).copySaltTo(salt);
        System.arraycopy(segs.get(2).bytes(), 16, serverIv, 0, 16);
        ScriptedRandom random = new ScriptedRandom(challenge, salt, serverIv);
        LoopbackServer server = new LoopbackServer(g.modes(), ALICE, random, 10_000);
        server.count = (int) g.count();
        int port;
        byte[] sid;
        if (name.equals("open")) {
            AcceptSession a = new AcceptSession().wrap(MemorySegment.ofArray(segs.get(4).bytes()));
            port = a.port();
            sid = new byte[16];
            a.copySidTo(sid);
        } else {
            Map<String, String> v = ControlVectors.verify(name);
            port = Integer.parseInt(v.get("port"));
            sid = ControlVectors.hex(v.get("sid"));
        }
        server.decider = r -> SessionAcceptance.accepted(port, sid);
        return server;
    }

    private static Socket connect(LoopbackServer server) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(60_000);
        return s;
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "auth", "enc", "mixed"})
    void shouldReproduceRecordedServerBytesForRecordedClient(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        try (LoopbackServer server = recordedServer(name, segs); Socket s = connect(server)) {
            InputStream in = s.getInputStream();
            for (int i = 0; i < segs.size(); i++) {
                byte[] b = segs.get(i).bytes();
                if (segs.get(i).clientToServer()) {
                    s.getOutputStream().write(b);
                } else {
                    assertEquals(HexFormat.of().formatHex(b), HexFormat.of().formatHex(in.readNBytes(b.length)),
                            name + " server segment " + i);
                }
            }
            s.shutdownOutput();
            assertEquals(-1, in.read(), "the server sends nothing after Start-Ack");
            assertEquals(ControlCloseReason.PEER_CLOSED, server.awaitClosed());
            assertEquals(List.of(0), server.stops);
            assertEquals(1, server.starts);
            SessionRequest r = server.requests.getFirst();
            assertEquals(InetAddress.getByName("127.0.0.1"), r.senderAddress());
            assertEquals(4, r.ipvn());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth", "enc", "mixed"})
    void shouldCloseOnAnyFlippedBitAfterFirstRequestBlock(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        for (int target : new int[] {3, 5, 7}) {
            int len = segs.get(target).bytes().length;
            for (int bit = 16 * 8; bit < len * 8; bit += 29) {
                try (LoopbackServer server = recordedServer(name, segs); Socket s = connect(server)) {
                    InputStream in = s.getInputStream();
                    for (int i = 0; i <= target; i++) {
                        byte[] b = segs.get(i).bytes().clone();
                        if (i == target) {
                            b[bit / 8] ^= (byte) (1 << (bit % 8));
                        }
                        if (segs.get(i).clientToServer()) {
                            s.getOutputStream().write(b);
                        } else {
                            in.readNBytes(b.length);
                        }
                    }
                    assertEquals(ControlCloseReason.HMAC_FAILURE, server.awaitClosed(), "bit " + bit + " of segment " + target);
                    assertEquals(-1, in.read(), "nothing answers a message with a bad HMAC");
                }
            }
        }
    }

    /** A raw open-mode client: greeting read, Set-Up-Response with the given mode word sent. */
    private static Socket rawSetUp(LoopbackServer server, int modeWord) throws IOException {
        Socket s = connect(server);
        byte[] greeting = s.getInputStream().readNBytes(ServerGreeting.LENGTH);
        assertEquals(ServerGreeting.LENGTH, greeting.length);
        byte[] setUp = new byte[SetUpResponse.LENGTH];
        new SetUpResponse().wrap(MemorySegment.ofArray(setUp)).mode(modeWord)
                .keyId("alice".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().write(setUp);
        return s;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 12, 16, -1})
    void shouldCloseWithoutReplyOnInvalidModeWord(int modeWord) throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS); Socket s = rawSetUp(server, modeWord)) {
            assertEquals(-1, s.getInputStream().read());
            assertEquals(ControlCloseReason.INVALID_MODE, server.awaitClosed());
        }
    }

    @Test
    void shouldRejectModeThatWasNotOffered() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.OPEN.bits());
             Socket s = rawSetUp(server, Mode.ENCRYPTED.bits())) {
            byte[] start = s.getInputStream().readNBytes(48);
            byte[] expected = new byte[48];
            expected[15] = (byte) AcceptCode.REJECT.code();
            assertArrayEquals(expected, start);
            assertEquals(-1, s.getInputStream().read());
            assertEquals(ControlCloseReason.MODE_NOT_OFFERED, server.awaitClosed());
        }
    }

    @Test
    void shouldRejectWhenPolicyDenies() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS)) {
            server.admission = AcceptCode.FAILURE;
            try (Socket s = rawSetUp(server, Mode.OPEN.bits())) {
                byte[] start = s.getInputStream().readNBytes(48);
                assertEquals(2, start[15]);
                assertEquals(ControlCloseReason.DENIED, server.awaitClosed());
            }
        }
    }

    @Test
    void shouldCloseAfterGreetingWhenNoModeIsOffered() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(0); Socket s = connect(server)) {
            byte[] g = s.getInputStream().readNBytes(64);
            assertEquals(0, new ServerGreeting().wrap(MemorySegment.ofArray(g)).modes());
            assertEquals(-1, s.getInputStream().read());
            assertEquals(ControlCloseReason.NO_MODES_OFFERED, server.awaitClosed());
        }
    }

    @Test
    void shouldEndOnTruncatedSetUpResponse() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS); Socket s = connect(server)) {
            s.getInputStream().readNBytes(64);
            s.getOutputStream().write(new byte[100]);
            s.shutdownOutput();
            assertEquals(ControlCloseReason.PEER_CLOSED, server.awaitClosed());
        }
    }

    @Test
    void shouldTimeOutWaitingForSetUpResponse() throws Exception {
        try (LoopbackServer server = new LoopbackServer(Mode.ALL_BITS, ALICE, new SecureRandom(), 150);
             Socket s = connect(server)) {
            s.getInputStream().readNBytes(64);
            assertEquals(ControlCloseReason.TIMEOUT, server.awaitClosed());
            assertEquals(-1, s.getInputStream().read());
        }
    }

    private static byte[] openRequest(int typeP) throws IOException {
        byte[] b = new byte[RequestTwSession.LENGTH];
        ControlLoopbackTest.request(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("127.0.0.1"), typeP)
                .encode(new RequestTwSession().wrap(MemorySegment.ofArray(b)));
        return b;
    }

    @Test
    void shouldAnswerEachUnexpectedBlockWithAccept3AndStayUsable() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS); Socket s = rawSetUp(server, 1)) {
            InputStream in = s.getInputStream();
            assertEquals(48, in.readNBytes(48).length);
            byte[] junk = new byte[32];
            junk[0] = 9;
            s.getOutputStream().write(junk); // two blocks: command 9, then command 0
            for (int i = 0; i < 2; i++) {
                byte[] reply = in.readNBytes(AcceptSession.LENGTH);
                AcceptSession a = new AcceptSession().wrap(MemorySegment.ofArray(reply));
                assertEquals(AcceptCode.UNSUPPORTED.code(), a.accept());
                assertEquals(0, a.port());
            }
            s.getOutputStream().write(openRequest(0));
            byte[] reply = in.readNBytes(AcceptSession.LENGTH);
            assertEquals(0, reply[0]);
            assertEquals(18760, new AcceptSession().wrap(MemorySegment.ofArray(reply)).port());
        }
    }

    @Test
    void shouldCloseOnUnexpectedCommandDuringTest() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS); Socket s = rawSetUp(server, 1)) {
            InputStream in = s.getInputStream();
            in.readNBytes(48);
            s.getOutputStream().write(openRequest(0));
            in.readNBytes(48);
            byte[] start = new byte[32];
            new StartSessions().wrap(MemorySegment.ofArray(start)).reset();
            s.getOutputStream().write(start);
            assertEquals(0, in.readNBytes(32)[0]);
            s.getOutputStream().write(openRequest(0));
            assertEquals(ControlCloseReason.PROTOCOL_ERROR, server.awaitClosed());
            assertClosedByPeer(in);
        }
    }

    /** The server closed: EOF, or a reset when it closed with our unread bytes in its buffer (as twampd does). */
    private static void assertClosedByPeer(InputStream in) throws IOException {
        try {
            assertEquals(-1, in.read());
        } catch (SocketException e) {
            assertTrue(String.valueOf(e.getMessage()).contains("reset"), e.toString());
        }
    }

    @Test
    void shouldCloseOnStopSessionsCountMismatch() throws Exception {
        try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS); Socket s = rawSetUp(server, 1)) {
            InputStream in = s.getInputStream();
            in.readNBytes(48);
            s.getOutputStream().write(openRequest(0));
            in.readNBytes(48);
            byte[] start = new byte[32];
            new StartSessions().wrap(MemorySegment.ofArray(start)).reset();
            s.getOutputStream().write(start);
            in.readNBytes(32);
            byte[] stop = new byte[32];
            new StopSessions().wrap(MemorySegment.ofArray(stop)).reset().numberOfSessions(2);
            s.getOutputStream().write(stop);
            assertEquals(ControlCloseReason.PROTOCOL_ERROR, server.awaitClosed());
            assertTrue(server.stops.isEmpty());
        }
    }

    @Test
    void shouldCloseOnRandomGarbage() throws Exception {
        SecureRandom rnd = new SecureRandom();
        for (int round = 0; round < 5; round++) {
            try (LoopbackServer server = LoopbackServer.aliceOnly(Mode.ALL_BITS); Socket s = connect(server)) {
                s.getInputStream().readNBytes(64);
                byte[] junk = new byte[400];
                rnd.nextBytes(junk);
                junk[3] = 0x07; // never a single-bit mode
                s.getOutputStream().write(junk);
                assertEquals(ControlCloseReason.INVALID_MODE, server.awaitClosed());
            }
        }
    }

    /** Recorded rejected runs: twampd's clear Server-Start with Accept 1 is reproduced byte for byte. */
    @ParameterizedTest
    @ValueSource(strings = {"error-bad-passphrase", "error-unknown-user"})
    void shouldRejectRecordedBadCredentialsLikeTwampd(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        assertEquals(3, segs.size());
        ServerGreeting g = new ServerGreeting().wrap(MemorySegment.ofArray(segs.get(0).bytes()));
        byte[] challenge = new byte[16];
        byte[] salt = new byte[16];
        g.copyChallengeTo(challenge).copySaltTo(salt);
        try (LoopbackServer server = new LoopbackServer(g.modes(), ALICE, new ScriptedRandom(challenge, salt), 10_000)) {
            server.count = (int) g.count();
            try (Socket s = connect(server)) {
                InputStream in = s.getInputStream();
                assertArrayEquals(segs.get(0).bytes(), in.readNBytes(64));
                s.getOutputStream().write(segs.get(1).bytes());
                assertArrayEquals(segs.get(2).bytes(), in.readNBytes(48));
                assertEquals(-1, in.read());
            }
            assertEquals(name.equals("error-unknown-user") ? ControlCloseReason.UNKNOWN_IDENTITY
                    : ControlCloseReason.INVALID_TOKEN, server.awaitClosed());
        }
    }

    /** A garbled first request block is parsed as an unknown command (quirk path): bounded replies, never a hang. */
    @ParameterizedTest
    @ValueSource(strings = {"auth", "enc", "mixed"})
    void shouldSurviveFlippedBitsInFirstRequestBlock(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        for (int bit = 0; bit < 128; bit += 11) {
            try (LoopbackServer server = recordedServer(name, segs); Socket s = connect(server)) {
                InputStream in = s.getInputStream();
                in.readNBytes(64);
                s.getOutputStream().write(segs.get(1).bytes());
                in.readNBytes(48);
                byte[] request = segs.get(3).bytes().clone();
                request[bit / 8] ^= (byte) (1 << (bit % 8));
                s.getOutputStream().write(request);
                s.shutdownOutput();
                byte[] replies = in.readAllBytes();
                assertEquals(0, replies.length % AcceptSession.LENGTH);
                assertTrue(replies.length <= 7 * AcceptSession.LENGTH, "at most one reply per block");
                ControlCloseReason reason = server.awaitClosed();
                assertTrue(reason == ControlCloseReason.PEER_CLOSED || reason == ControlCloseReason.HMAC_FAILURE,
                        reason + " for bit " + bit);
                assertTrue(server.requests.isEmpty(), "a garbled request never reaches the handler");
            }
        }
    }
}
