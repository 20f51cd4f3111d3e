package io.github.twping.crypto;

import static io.github.twping.crypto.ControlVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.crypto.ControlVectors.Segment;
import io.github.twping.protocol.AcceptSession;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.RequestTwSession;
import io.github.twping.protocol.ServerGreeting;
import io.github.twping.protocol.ServerStart;
import io.github.twping.protocol.SetUpResponse;
import io.github.twping.protocol.StartAck;
import io.github.twping.protocol.StopSessions;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/** Replays the recorded 5.2.3 control connections through the flyweights, Token and ControlCipher. */
class ControlCipherReplayTest {

    /** The keyed material of one recorded connection. */
    private record Keys(ServerGreeting greeting, SetUpResponse setUp, ServerStart serverStart, byte[] dk,
                        byte[] aesKey, byte[] hmacKey, byte[] clientIv, byte[] serverIv) { }

    private static Keys keys(List<Segment> segs) {
        ServerGreeting greeting = new ServerGreeting().wrap(MemorySegment.ofArray(segs.get(0).bytes()));
        SetUpResponse setUp = new SetUpResponse().wrap(MemorySegment.ofArray(segs.get(1).bytes()));
        ServerStart start = new ServerStart().wrap(MemorySegment.ofArray(segs.get(2).bytes().clone()));
        byte[] salt = new byte[16];
        byte[] challenge = new byte[16];
        greeting.copySaltTo(salt).copyChallengeTo(challenge);
        byte[] dk = KeyDerivation.pbkdf2HmacSha1(ControlVectors.ALICE_PASSPHRASE, salt, (int) greeting.count());
        byte[] token = new byte[64];
        setUp.copyTokenTo(token);
        byte[] aes = new byte[16];
        byte[] hmac = new byte[32];
        assertTrue(Token.open(dk, token, challenge, aes, hmac), "token challenge");
        byte[] clientIv = new byte[16];
        byte[] serverIv = new byte[16];
        setUp.copyClientIvTo(clientIv);
        start.copyServerIvTo(serverIv);
        return new Keys(greeting, setUp, start, dk, aes, hmac, clientIv, serverIv);
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth", "enc", "mixed"})
    void shouldReproduceRecordedIntermediates(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        Map<String, String> v = ControlVectors.verify(name);
        Keys k = keys(segs);
        assertEquals(Integer.decode(v.get("modes")), k.greeting().modes());
        assertEquals(Long.parseLong(v.get("count")), k.greeting().count());
        byte[] salt = new byte[16];
        byte[] challenge = new byte[16];
        k.greeting().copySaltTo(salt).copyChallengeTo(challenge);
        assertEquals(v.get("salt"), hex(salt));
        assertEquals(v.get("challenge"), hex(challenge));
        assertEquals(Mode.fromBits(Integer.parseInt(v.get("mode"))).bits(), k.setUp().mode());
        assertEquals(v.get("keyid"), new String(k.setUp().keyIdBytes(), StandardCharsets.US_ASCII));
        assertEquals(v.get("pbkdf2_key"), hex(k.dk()));
        assertEquals(v.get("aes_session_key"), hex(k.aesKey()));
        assertEquals(v.get("hmac_key"), hex(k.hmacKey()));
        assertEquals(v.get("client_iv"), hex(k.clientIv()));
        assertEquals(v.get("server_iv"), hex(k.serverIv()));
        assertEquals(Integer.parseInt(v.get("accept")), k.serverStart().accept());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth", "enc", "mixed"})
    void shouldVerifyEveryHmacAndDecodeBothDirections(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        Map<String, String> v = ControlVectors.verify(name);
        Keys k = keys(segs);
        try (ControlCipher server = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.serverIv(), k.clientIv());
             ControlCipher client = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.clientIv(), k.serverIv())) {
            // Server -> client: Server-Start block 32..47 is carried into the Accept-Session HMAC.
            MemorySegment ss = MemorySegment.ofArray(segs.get(2).bytes().clone());
            client.decrypt(ss, ServerStart.PROTECTED_OFFSET, 16);
            assertEquals(v.get("time"), String.format("%016x", new ServerStart().wrap(ss).startTimeNtp()));
            MemorySegment as = MemorySegment.ofArray(segs.get(4).bytes().clone());
            client.decrypt(as, 0, AcceptSession.HMAC_OFFSET);
            assertTrue(client.verifyHmac(as, AcceptSession.HMAC_OFFSET), "Accept-Session HMAC");
            AcceptSession accept = new AcceptSession().wrap(as);
            byte[] sid = new byte[16];
            accept.copySidTo(sid);
            assertEquals(Integer.parseInt(v.get("port")), accept.port());
            assertEquals(v.get("sid"), hex(sid));
            MemorySegment ack = MemorySegment.ofArray(segs.get(6).bytes().clone());
            client.decrypt(ack, 0, StartAck.HMAC_OFFSET);
            assertTrue(client.verifyHmac(ack, StartAck.HMAC_OFFSET), "Start-Ack HMAC");
            assertEquals(0, new StartAck().wrap(ack).accept());

            // Client -> server.
            MemorySegment rq = MemorySegment.ofArray(segs.get(3).bytes().clone());
            server.decrypt(rq, 0, RequestTwSession.HMAC_OFFSET);
            assertTrue(server.verifyHmac(rq, RequestTwSession.HMAC_OFFSET), "Request-TW-Session HMAC");
            assertEquals(v.get("plain.5"), hex(rq.asSlice(0, 96).toArray(ValueLayout.JAVA_BYTE)));
            RequestTwSession req = new RequestTwSession().wrap(rq);
            assertEquals(RequestTwSession.COMMAND, req.command());
            assertEquals(Integer.parseInt(v.get("ipvn")), req.ipvn());
            assertEquals(Integer.parseInt(v.get("sender_port")), req.senderPort());
            assertEquals(Integer.parseInt(v.get("receiver_port")), req.receiverPort());
            assertEquals(Long.parseLong(v.get("padding")), req.paddingLength());
            assertEquals(v.get("timeout_raw"), String.format("%016x", req.timeoutNtp()));
            assertEquals(v.get("typeP"), String.format("%08x", req.typePDescriptor()));
            byte[] addr = new byte[4];
            req.copySenderAddressTo(addr);
            assertEquals("7f000001", hex(addr));
            for (int i = 5; i < segs.size(); i += 2) {
                MemorySegment m = MemorySegment.ofArray(segs.get(i).bytes().clone());
                server.decrypt(m, 0, 16);
                assertTrue(server.verifyHmac(m, 16), "HMAC of client message " + i);
                assertEquals(v.get("plain." + (i == 5 ? 2 : 3)), hex(m.asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE)));
            }
            assertEquals(1, new StopSessions().wrap(MemorySegment.ofArray(decrypted(segs, k).get(7))).numberOfSessions());
        }
    }

    /** Decrypts every message after the set-up into plaintext (HMAC fields included). */
    private static List<byte[]> decrypted(List<Segment> segs, Keys k) {
        ControlCipher server = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.serverIv(), k.clientIv());
        ControlCipher client = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.clientIv(), k.serverIv());
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < segs.size(); i++) {
            byte[] b = segs.get(i).bytes().clone();
            MemorySegment m = MemorySegment.ofArray(b);
            if (i == 2) {
                client.decrypt(m, 32, 16);
            } else if (i > 2) {
                ControlCipher c = segs.get(i).clientToServer() ? server : client;
                c.decrypt(m, 0, b.length - 16);
                assertTrue(c.verifyHmac(m, b.length - 16));
            }
            out.add(b);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth", "enc", "mixed"})
    void shouldReproduceRecordedCiphertextFromPlaintext(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        Keys k = keys(segs);
        List<byte[]> plain = decrypted(segs, k);
        ControlCipher client = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.clientIv(), k.serverIv());
        ControlCipher server = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.serverIv(), k.clientIv());
        for (int i = 2; i < segs.size(); i++) {
            byte[] b = plain.get(i).clone();
            MemorySegment m = MemorySegment.ofArray(b);
            if (i == 2) {
                server.encrypt(m, 32, 16);
            } else {
                Arrays.fill(b, b.length - 16, b.length, (byte) 0x5a); // the seal must overwrite the field
                ControlCipher c = segs.get(i).clientToServer() ? client : server;
                c.encrypt(m, 0, b.length - 16);
                c.sealHmac(m, b.length - 16);
            }
            assertArrayEquals(segs.get(i).bytes(), b, "segment " + i);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth", "enc", "mixed"})
    void shouldDetectAnyFlippedBitInProtectedMessages(String name) throws Exception {
        List<Segment> segs = ControlVectors.segments(name);
        Keys k = keys(segs);
        for (int i = 3; i < segs.size(); i++) {
            int len = segs.get(i).bytes().length;
            for (int bit = 0; bit < len * 8; bit += 7) {
                ControlCipher server = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.serverIv(), k.clientIv());
                ControlCipher client = ControlCipher.protectedMode(k.aesKey(), k.hmacKey(), k.clientIv(), k.serverIv());
                boolean allOk = true;
                for (int j = 2; j <= i; j++) {
                    byte[] b = segs.get(j).bytes().clone();
                    if (j == i) {
                        b[bit / 8] ^= (byte) (1 << (bit % 8));
                    }
                    MemorySegment m = MemorySegment.ofArray(b);
                    if (j == 2) {
                        client.decrypt(m, 32, 16);
                        continue;
                    }
                    ControlCipher c = segs.get(j).clientToServer() ? server : client;
                    c.decrypt(m, 0, b.length - 16);
                    allOk &= c.verifyHmac(m, b.length - 16);
                }
                assertFalse(allOk, "flip of bit " + bit + " in segment " + i + " went unnoticed");
            }
        }
    }

    @Test
    void shouldPassOpenModeThroughWithZeroHmacs() throws Exception {
        List<Segment> segs = ControlVectors.segments("open");
        ControlCipher open = ControlCipher.open();
        for (int i = 3; i < segs.size(); i++) {
            byte[] recorded = segs.get(i).bytes();
            byte[] b = recorded.clone();
            MemorySegment m = MemorySegment.ofArray(b);
            open.decrypt(m, 0, b.length - 16);
            assertTrue(open.verifyHmac(m, b.length - 16));
            assertArrayEquals(recorded, b);
            Arrays.fill(b, b.length - 16, b.length, (byte) 1);
            open.encrypt(m, 0, b.length - 16);
            open.sealHmac(m, b.length - 16);
            assertArrayEquals(recorded, b, "open segment " + i + " (zero HMAC)");
        }
        RequestTwSession req = new RequestTwSession().wrap(MemorySegment.ofArray(segs.get(3).bytes()));
        assertEquals(27, req.paddingLength());
        assertEquals(4, req.ipvn());
        assertEquals(Mode.OPEN.bits(), new SetUpResponse().wrap(MemorySegment.ofArray(segs.get(1).bytes())).mode());
    }
}
