package io.github.twping.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.crypto.TestVectors.Datagram;
import io.github.twping.crypto.TestVectors.RawRecord;
import io.github.twping.protocol.AuthReflectorPacket;
import io.github.twping.protocol.AuthSenderPacket;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.time.ErrorEstimate;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TestPacketCipherTest {

    private static int modeBits(String mode) {
        return switch (mode) {
            case "open" -> 1;
            case "auth" -> 2;
            case "enc" -> 4;
            case "mixed" -> 8;
            default -> throw new IllegalArgumentException(mode);
        };
    }

    private static boolean authenticatedLayout(String mode) {
        return mode.equals("auth") || mode.equals("enc");
    }

    private static TestSessionKeys recordedKeys(String mode) throws Exception {
        if (!authenticatedLayout(mode)) {
            return null;
        }
        return TestSessionKeys.derive(TestVectors.cryptoValue(mode, "sid="),
            TestVectors.cryptoValue(mode, "aes_session_key="), TestVectors.cryptoValue(mode, "hmac_key="));
    }

    private static TestPacketCipher cipher(String mode) throws Exception {
        return TestPacketCipher.forMode(modeBits(mode), recordedKeys(mode));
    }

    private static MemorySegment copyOf(byte[] bytes) {
        MemorySegment segment = MemorySegment.ofArray(new byte[bytes.length]);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return segment;
    }

    /** Which datagrams go client -> reflector: those to the first datagram's destination port. */
    private static boolean isSender(List<Datagram> datagrams, Datagram d) {
        return d.destinationPort() == datagrams.get(0).destinationPort();
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "auth", "enc", "mixed"})
    void shouldOpenEveryRecordedPacketAndMatchRawOutput(String mode) throws Exception {
        List<Datagram> datagrams = TestVectors.datagrams(mode);
        Map<Long, RawRecord> records = TestVectors.rawRecordsBySentSeq(mode);
        TestPacketCipher cipher = cipher(mode);
        boolean auth = authenticatedLayout(mode);
        SenderPacket sender = new SenderPacket();
        AuthSenderPacket authSender = new AuthSenderPacket();
        ReflectorPacket reflector = new ReflectorPacket();
        AuthReflectorPacket authReflector = new AuthReflectorPacket();
        int senders = 0;
        int reflections = 0;
        for (Datagram d : datagrams) {
            MemorySegment packet = copyOf(d.bytes());
            if (isSender(datagrams, d)) {
                assertTrue(cipher.openSender(packet, d.bytes().length), mode + " sender HMAC");
                long seq = auth ? authSender.wrap(packet).sequenceNumber() : sender.wrap(packet).sequenceNumber();
                long timestamp = auth ? authSender.timestampNtp() : sender.timestampNtp();
                int err = auth ? authSender.errorEstimate() : sender.errorEstimate();
                RawRecord r = records.get(seq);
                assertNotNull(r, "no -R record for sender seq " + seq);
                assertEquals(r.sentSendNtp(), timestamp, "STIME of seq " + seq);
                assertEquals(ErrorEstimate.UNSYNCHRONISED, err);
                assertEquals(seq, senders, "sender seqs are 0,1,2,...");
                senders++;
            } else {
                assertTrue(cipher.openReflector(packet, d.bytes().length), mode + " reflector HMAC");
                long senderSeq;
                long senderTimestamp;
                long receiveTimestamp;
                long reflectorTimestamp;
                long reflectorSeq;
                int senderTtl;
                int senderErr;
                int reflectorErr;
                if (auth) {
                    authReflector.wrap(packet);
                    senderSeq = authReflector.senderSequenceNumber();
                    senderTimestamp = authReflector.senderTimestampNtp();
                    receiveTimestamp = authReflector.receiveTimestampNtp();
                    reflectorTimestamp = authReflector.timestampNtp();
                    reflectorSeq = authReflector.sequenceNumber();
                    senderTtl = authReflector.senderTtl();
                    senderErr = authReflector.senderErrorEstimate();
                    reflectorErr = authReflector.errorEstimate();
                } else {
                    reflector.wrap(packet);
                    senderSeq = reflector.senderSequenceNumber();
                    senderTimestamp = reflector.senderTimestampNtp();
                    receiveTimestamp = reflector.receiveTimestampNtp();
                    reflectorTimestamp = reflector.timestampNtp();
                    reflectorSeq = reflector.sequenceNumber();
                    senderTtl = reflector.senderTtl();
                    senderErr = reflector.senderErrorEstimate();
                    reflectorErr = reflector.errorEstimate();
                }
                RawRecord r = records.get(senderSeq);
                assertNotNull(r, "no -R record for reflected sender seq " + senderSeq);
                assertEquals(r.sentSendNtp(), senderTimestamp, "STIME");
                assertEquals(r.sentRecvNtp(), receiveTimestamp, "SRTIME");
                assertEquals(r.reflSendNtp(), reflectorTimestamp, "RSTIME");
                assertEquals(r.reflSeq(), reflectorSeq, "RSEQ");
                assertEquals(r.sentTtl(), senderTtl, "STTL");
                assertEquals(r.reflTtl(), d.ipTtl(), "RTTL = IP TTL of the reply");
                assertEquals(ErrorEstimate.UNSYNCHRONISED, senderErr);
                assertEquals(ErrorEstimate.UNSYNCHRONISED, reflectorErr);
                reflections++;
            }
        }
        assertEquals(records.size(), senders);
        assertEquals(records.size(), reflections);
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "auth", "enc", "mixed"})
    void shouldResealToRecordedBytes(String mode) throws Exception {
        List<Datagram> datagrams = TestVectors.datagrams(mode);
        TestPacketCipher opener = cipher(mode);
        TestPacketCipher sealer = cipher(mode);
        boolean auth = authenticatedLayout(mode);
        int headerLength = isSenderLength(auth);
        for (Datagram d : datagrams) {
            byte[] recorded = d.bytes();
            MemorySegment plain = copyOf(recorded);
            MemorySegment resealed = MemorySegment.ofArray(new byte[recorded.length]);
            if (isSender(datagrams, d)) {
                assertTrue(opener.openSender(plain, recorded.length));
                AuthSenderPacket authView = new AuthSenderPacket().wrap(plain);
                SenderPacket view = new SenderPacket().wrap(plain);
                long seq = auth ? authView.sequenceNumber() : view.sequenceNumber();
                long timestamp = auth ? authView.timestampNtp() : view.timestampNtp();
                int err = auth ? authView.errorEstimate() : view.errorEstimate();
                // garbage first: sealing must write every header byte (MBZ included); padding is random
                // and in clear, so it is taken from the recording
                resealed.fill((byte) 0x5A);
                MemorySegment.copy(plain, headerLength, resealed, headerLength, recorded.length - headerLength);
                sealer.prepareSender(resealed, seq);
                sealer.finishSender(resealed, timestamp, err);
            } else {
                assertTrue(opener.openReflector(plain, recorded.length));
                MemorySegment.copy(plain, 0, resealed, 0, recorded.length);
                if (auth) {
                    resealed.asSlice(AuthReflectorPacket.HMAC_OFFSET, AuthReflectorPacket.HMAC_LENGTH).fill((byte) 0);
                }
                sealer.sealReflector(resealed);
            }
            assertArrayEquals(recorded, resealed.toArray(ValueLayout.JAVA_BYTE), mode + " datagram re-sealed");
        }
    }

    private static int isSenderLength(boolean auth) {
        return auth ? AuthSenderPacket.LENGTH : SenderPacket.LENGTH;
    }

    @ParameterizedTest
    @CsvSource({"auth, 0, 16", "auth, 32, 48", "enc, 0, 48"})
    void shouldRejectEveryFlippedBitInProtectedSenderBytes(String mode, int from, int to) throws Exception {
        assertFlipsRejected(mode, true, from, to);
    }

    @ParameterizedTest
    @CsvSource({"auth, 0, 16", "auth, 96, 112", "enc, 0, 112"})
    void shouldRejectEveryFlippedBitInProtectedReflectorBytes(String mode, int from, int to) throws Exception {
        assertFlipsRejected(mode, false, from, to);
    }

    private static void assertFlipsRejected(String mode, boolean senderDirection, int from, int to) throws Exception {
        List<Datagram> datagrams = TestVectors.datagrams(mode);
        TestPacketCipher cipher = cipher(mode);
        Datagram d = datagrams.stream().filter(x -> isSender(datagrams, x) == senderDirection).skip(7).findFirst().orElseThrow();
        for (int bit = from * 8; bit < to * 8; bit++) {
            byte[] bytes = d.bytes().clone();
            bytes[bit / 8] ^= (byte) (1 << (bit % 8));
            MemorySegment packet = copyOf(bytes);
            boolean opened = senderDirection ? cipher.openSender(packet, bytes.length) : cipher.openReflector(packet, bytes.length);
            assertFalse(opened, mode + " bit " + bit + " flipped");
        }
        // the cipher recovers: the intact packet still opens
        MemorySegment intact = copyOf(d.bytes());
        assertTrue(senderDirection ? cipher.openSender(intact, d.bytes().length) : cipher.openReflector(intact, d.bytes().length));
    }

    @Test
    void shouldLeaveClearBytesOfAuthenticatedModeUnprotected() throws Exception {
        // perfSONAR quirk (RFC 5357 §4.1.2): the HMAC covers block 0 only, so the clear timestamps may change
        List<Datagram> datagrams = TestVectors.datagrams("auth");
        TestPacketCipher cipher = cipher("auth");
        byte[] reply = datagrams.get(1).bytes().clone();
        reply[AuthReflectorPacket.RECEIVE_TIMESTAMP_OFFSET + 7] ^= 1;
        assertTrue(cipher.openReflector(copyOf(reply), reply.length));
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "auth", "enc", "mixed"})
    void shouldRejectTruncatedPackets(String mode) throws Exception {
        List<Datagram> datagrams = TestVectors.datagrams(mode);
        TestPacketCipher cipher = cipher(mode);
        byte[] senderBytes = datagrams.get(0).bytes();
        byte[] reflectorBytes = datagrams.get(1).bytes();
        assertFalse(cipher.openSender(copyOf(senderBytes), cipher.senderLength() - 1));
        assertFalse(cipher.openReflector(copyOf(reflectorBytes), cipher.reflectorLength() - 1));
        assertFalse(cipher.openReflector(MemorySegment.ofArray(new byte[cipher.reflectorLength() - 1]), cipher.reflectorLength()));
        assertFalse(cipher.openSender(MemorySegment.ofArray(new byte[0]), 0));
        assertTrue(cipher.openReflector(copyOf(reflectorBytes), reflectorBytes.length));
    }

    @Test
    void shouldMatchAppendixCFirstEncryptedPacket() throws Exception {
        TestPacketCipher cipher = cipher("enc");
        byte[] expected = TestVectors.datagrams("enc").get(0).bytes();
        MemorySegment packet = MemorySegment.ofArray(new byte[112]);
        MemorySegment.copy(expected, 48, packet, ValueLayout.JAVA_BYTE, 48, 64);
        cipher.sealSender(packet, 0, 0xeeb7dd61cf1ec0b5L, 0x0001);
        assertEquals("e14eb5281b6dafd72854dc02c76dc55988c87bfabab9c52f8e9f9b4c6bc691c5",
            TestVectors.HEX.formatHex(packet.asSlice(0, 32).toArray(ValueLayout.JAVA_BYTE)));
        assertArrayEquals(expected, packet.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void shouldMatchAppendixC2AuthenticatedSenderPacket() throws Exception {
        TestPacketCipher cipher = cipher("auth");
        MemorySegment packet = MemorySegment.ofArray(new byte[48]);
        cipher.sealSender(packet, 0, 0xeeb7dd4989b18548L, 0x0001);
        assertEquals("8c150494626c608f92c3bb5fdb85bf05" + "eeb7dd4989b185480001000000000000" + "e8693bcb6d93d8862d8d4654f7c54a04",
            TestVectors.HEX.formatHex(packet.toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void shouldChooseStrategyOnceByModeBits() throws Exception {
        assertSame(UnauthenticatedTestPacketCipher.INSTANCE, TestPacketCipher.forMode(1, null));
        assertSame(UnauthenticatedTestPacketCipher.INSTANCE, TestPacketCipher.forMode(8, null));
        assertTrue(TestPacketCipher.forMode(2, recordedKeys("auth")) instanceof AuthenticatedTestPacketCipher);
        assertTrue(TestPacketCipher.forMode(4, recordedKeys("enc")) instanceof EncryptedTestPacketCipher);
        assertThrows(IllegalArgumentException.class, () -> TestPacketCipher.forMode(2, null));
        assertThrows(IllegalArgumentException.class, () -> TestPacketCipher.forMode(3, recordedKeys("enc")));
        assertEquals(14, TestPacketCipher.forMode(1, null).senderLength());
        assertEquals(41, TestPacketCipher.forMode(8, null).reflectorLength());
        assertEquals(48, TestPacketCipher.forMode(4, recordedKeys("enc")).senderLength());
        assertEquals(112, TestPacketCipher.forMode(2, recordedKeys("auth")).reflectorLength());
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "auth", "enc", "mixed"})
    void shouldRoundTripSenderAndReflectorThroughBothSides(String mode) throws Exception {
        TestPacketCipher client = cipher(mode);
        TestPacketCipher server = cipher(mode);
        boolean auth = authenticatedLayout(mode);
        MemorySegment request = MemorySegment.ofArray(new byte[client.senderLength() + 20]);
        long seq = 0xFFFF_FFFFL;
        client.prepareSender(request, seq);
        client.finishSender(request, 0xE8FE6F801F9ACFFAL, 0x8587);
        assertTrue(server.openSender(request, (int) request.byteSize()));
        long gotSeq = auth ? new AuthSenderPacket().wrap(request).sequenceNumber() : new SenderPacket().wrap(request).sequenceNumber();
        assertEquals(seq, gotSeq);

        MemorySegment reply = MemorySegment.ofArray(new byte[server.reflectorLength()]);
        if (auth) {
            new AuthReflectorPacket().wrap(reply).sequenceNumber(0x8000_0000L).timestampNtp(-2L).errorEstimate(0xFFFF)
                .receiveTimestampNtp(1L).senderSequenceNumber(seq).senderTimestampNtp(0xE8FE6F801F9ACFFAL)
                .senderErrorEstimate(0x8587).senderTtl(64).clearMbz();
        } else {
            new ReflectorPacket().wrap(reply).sequenceNumber(0x8000_0000L).timestampNtp(-2L).errorEstimate(0xFFFF)
                .receiveTimestampNtp(1L).senderSequenceNumber(seq).senderTimestampNtp(0xE8FE6F801F9ACFFAL)
                .senderErrorEstimate(0x8587).senderTtl(64).clearMbz();
        }
        server.sealReflector(reply);
        assertTrue(client.openReflector(reply, (int) reply.byteSize()));
        if (auth) {
            AuthReflectorPacket view = new AuthReflectorPacket().wrap(reply);
            assertEquals(0x8000_0000L, view.sequenceNumber());
            assertEquals(-2L, view.timestampNtp());
            assertEquals(0xFFFF, view.errorEstimate());
            assertEquals(seq, view.senderSequenceNumber());
            assertEquals(64, view.senderTtl());
        } else {
            ReflectorPacket view = new ReflectorPacket().wrap(reply);
            assertEquals(0x8000_0000L, view.sequenceNumber());
            assertEquals(-2L, view.timestampNtp());
            assertEquals(0xFFFF, view.errorEstimate());
            assertEquals(seq, view.senderSequenceNumber());
            assertEquals(64, view.senderTtl());
        }
    }
}
