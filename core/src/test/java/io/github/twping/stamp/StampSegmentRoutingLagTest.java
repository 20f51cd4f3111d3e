package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.StampLayouts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The RFC 9503 (Destination Node Address, Return Path and its sub-TLVs) and RFC 9534 (Micro-session ID) TLVs: the
 * sender's bytes against the layouts of the RFCs' figures (RFC 9503 §3, §4.1.1-§4.1.3; RFC 9534 §3.1), the
 * {@code --tlv} syntax and its refusals, and the reflector's answers to hand-built requests over loopback (what it
 * honours on a host that forwards by its routing table, docs/STAMP.md).
 */
class StampSegmentRoutingLagTest {
    private static final int BASE = StampLayouts.UNAUTHENTICATED_LENGTH;
    private LoopbackReflector harness;
    private StampReflector reflector;
    private DatagramSocket client;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    /** The bytes our sender puts after the base packet for {@code tlvs}. */
    private static byte[] senderTlvs(String tlvs) {
        StampTlvRequest request = StampTlvRequest.parse(tlvs, false);
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 1, 0, request);
        StampSenderCodec codec = new StampSenderCodec(spec);
        int length = BASE + request.bytes();
        MemorySegment packet = MemorySegment.ofArray(new byte[length]);
        new SenderPacket(StampLayouts.UNAUTHENTICATED_SENDER).wrap(packet).clearMbz().sequenceNumber(5);
        codec.sealSenderHead(packet);
        return Arrays.copyOfRange(packet.toArray(ValueLayout.JAVA_BYTE), BASE, length);
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void destinationNodeReturnPathControlCodeAndMicroSessionFollowTheFigures() {
        byte[] expected = concat(
                // RFC 9503 §3: Flags (U set by a sender, RFC 8972 §4) | Type 9 | Length 4 | IPv4 address
                bytes(0x80, 9, 0, 4, 192, 0, 2, 1),
                // RFC 9503 §4, §4.1.1: Type 10 | Length 8 | sub-TLV Flags 0 | Type 1 | Length 4 | Control Code 1
                bytes(0x80, 10, 0, 8, 0, 1, 0, 4, 0, 0, 0, 1),
                // RFC 9534 §3.1: Type 11 | Length 4 | Sender Micro-session ID 7 | Reflector Micro-session ID 0
                bytes(0x80, 11, 0, 4, 0, 7, 0, 0));
        assertArrayEquals(expected, senderTlvs("dna=192.0.2.1,rp-cc=1,msid=7"));
    }

    @Test
    void returnAddressAndSegmentListsFollowTheFigures() {
        // RFC 9503 §4.1.2 Return Address, §4.1.3.1 SR-MPLS label stack (Label 20 | TC 3 | S 1 | TTL 8 per entry;
        // S on the bottom entry; TTL 255)
        byte[] mpls = concat(bytes(0x80, 10, 0, 20),
                bytes(0, 2, 0, 4, 198, 51, 100, 1),
                bytes(0, 3, 0, 8),
                bytes(0x03, 0xE8, 0x10, 0xFF),            // 16001 << 12 | TTL 255
                bytes(0x03, 0xE8, 0x21, 0xFF));           // 16002 << 12 | S | TTL 255
        assertArrayEquals(mpls, senderTlvs("rp-addr=198.51.100.1,rp-mpls=16001/16002"));
        // §4.1.3.2 SRv6 segment list, 16 octets per segment; an IPv6 Destination Node Address (§3, Length 16)
        byte[] sid = new byte[16];
        sid[0] = 0x20;
        sid[1] = 0x01;
        sid[2] = 0x0d;
        sid[3] = (byte) 0xb8;
        sid[15] = 1;
        byte[] srv6 = concat(bytes(0x80, 9, 0, 16), sid, bytes(0x80, 10, 0, 20, 0, 4, 0, 16), sid);
        assertArrayEquals(srv6, senderTlvs("dna=2001:db8::1,rp-srv6=2001:db8::1"));
        assertEquals(StampLayouts.UNAUTHENTICATED_LENGTH, BASE);
    }

    @Test
    void tlvSyntaxRefusesWhatTheRfcsForbid() {
        for (String bad : List.of("rp-cc=1,rp-addr=192.0.2.1", "rp-mpls=1,rp-srv6=2001:db8::1", "rp-cc=2",
                "dna=reflector.example", "rp-srv6=192.0.2.1", "rp-mpls=1048576", "msid=65536", "msid=1:2:3",
                "rp-addr=")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StampTlvRequest.parse(bad, false), bad);
            assertTrue(e.getMessage().startsWith("invalid TLV: "), e.getMessage());
        }
        StampTlvRequest ok = StampTlvRequest.parse("msid=9:3,rp-addr=192.0.2.7,rp-srv6=2001:db8::1/2001:db8::2",
                false);
        assertEquals(9, ok.microSessionSender());
        assertEquals(3, ok.microSessionReflector());
        assertEquals(List.of("return_address", "srv6_segment_list"), ok.returnPath().names());
        assertEquals(4 + 4 + 4 + 4 + 32 + 4 + 4, ok.bytes() - 0, "Return Path and Micro-session ID octets");
    }

    private InetSocketAddress start(int memberLink) throws Exception {
        harness = LoopbackReflector.start(StampReflectorSpec.stamp().withMemberLink(memberLink));
        reflector = harness.reflector();
        client = harness.client();
        return harness.address();
    }

    private byte[] request(int seq, byte[] tlvs) {
        ByteBuffer b = ByteBuffer.allocate(BASE + tlvs.length);
        b.putInt(0, seq).putShort(12, (short) 1).putShort(14, (short) 77);
        b.put(BASE, tlvs);
        return b.array();
    }

    private byte[] exchange(InetSocketAddress to, byte[] request) throws Exception {
        return harness.exchange(to, request);
    }

    /** {@code request} gets no reply: a following good one is answered first. */
    private void assertNoReply(InetSocketAddress to, byte[] request) throws Exception {
        client.send(new DatagramPacket(request, request.length, to));
        byte[] reply = exchange(to, request(999, new byte[0]));
        assertEquals(999, ByteBuffer.wrap(reply).getInt(24), "the first reply answers the good packet");
    }

    private static byte[] tlvs(byte[] reply) {
        return Arrays.copyOfRange(reply, BASE, reply.length);
    }

    @Test
    void reflectorHonoursWhatALoopbackHostCan() throws Exception {
        InetSocketAddress to = start(42);
        byte[] reply = exchange(to, request(1, concat(bytes(0x80, 9, 0, 4, 127, 0, 0, 1),
                bytes(0x80, 10, 0, 8, 0, 1, 0, 4, 0, 0, 0, 1),
                bytes(0x80, 11, 0, 4, 0, 7, 0, 0))));
        assertArrayEquals(concat(bytes(0, 9, 0, 4, 127, 0, 0, 1),       // our address: U clear
                bytes(0, 10, 0, 8, 0, 1, 0, 4, 0, 0, 0, 1),                // same link: honoured
                bytes(0, 11, 0, 4, 0, 7, 0, 42)), tlvs(reply));            // the member link filled in
        reply = exchange(to, request(2, concat(bytes(0x80, 9, 0, 4, 192, 0, 2, 1),
                bytes(0x80, 10, 0, 8, 0, 2, 0, 4, 127, 0, 0, 1))));
        assertArrayEquals(concat(bytes(0x80, 9, 0, 4, 192, 0, 2, 1),    // not this host: U
                bytes(0, 10, 0, 8, 0, 2, 0, 4, 127, 0, 0, 1)), tlvs(reply)); // the source itself: honoured
        byte[] sid = new byte[16];
        sid[15] = 1;
        reply = exchange(to, request(3, concat(bytes(0x80, 10, 0, 36, 0, 2, 0, 4, 198, 51, 100, 1),
                bytes(0, 4, 0, 16), sid, bytes(0, 3, 0, 4, 0x03, 0xE8, 0x11, 0xFF))));
        assertArrayEquals(concat(bytes(0x80, 10, 0, 36, 0x80, 2, 0, 4, 198, 51, 100, 1),  // a third party: U
                bytes(0x80, 4, 0, 16), sid, bytes(0x80, 3, 0, 4, 0x03, 0xE8, 0x11, 0xFF)),  // no SR on UDP: U
                tlvs(reply));
        reply = exchange(to, request(4, concat(bytes(0x80, 10, 0, 10, 0, 3, 0, 6, 0, 0, 0, 0, 0, 0),
                bytes(0x80, 10, 0, 8, 0, 1, 0, 4, 0, 0, 0, 1))));
        assertArrayEquals(concat(bytes(0x40, 10, 0, 10, 0x40, 3, 0, 6, 0, 0, 0, 0, 0, 0),  // not 4n octets: M
                bytes(0x80, 10, 0, 8, 0, 1, 0, 4, 0, 0, 0, 1)), tlvs(reply));              // a second one: U
        assertEquals(1, reflector.destinationNotLocal());
        assertEquals(2, reflector.returnPathNotUsed());
    }

    @Test
    void noReplyAndAnotherMemberLinkGetNoReply() throws Exception {
        InetSocketAddress to = start(42);
        assertNoReply(to, request(1, bytes(0x80, 10, 0, 8, 0, 1, 0, 4, 0, 0, 0, 0)));   // No Reply Requested
        assertNoReply(to, request(2, bytes(0x80, 11, 0, 4, 0, 7, 0, 43)));               // member link 43
        byte[] reply = exchange(to, request(3, bytes(0x80, 11, 0, 4, 0, 7, 0, 42)));    // ours: answered
        assertArrayEquals(bytes(0, 11, 0, 4, 0, 7, 0, 42), tlvs(reply));
        assertEquals(2, reflector.suppressed());
        assertEquals(1, reflector.returnPathNoReply());
        assertEquals(1, reflector.microSessionMismatch());
    }

    @Test
    void withoutAMemberLinkTheMicroSessionIdIsNotUnderstood() throws Exception {
        InetSocketAddress to = start(0);
        byte[] reply = exchange(to, request(1, bytes(0x80, 11, 0, 4, 0, 7, 0, 43)));
        assertArrayEquals(bytes(0x80, 11, 0, 4, 0, 7, 0, 43), tlvs(reply));
        assertEquals(0, reflector.microSessionMismatch());
    }

    /** Issue 26 item 13: reserved flag bits sent as 1 come back 0 (RFC 8972 §4 defines only U, M and I). */
    @Test
    void reservedFlagBitsGoBackZero() throws Exception {
        InetSocketAddress to = start(42);
        byte[] reply = exchange(to, request(1, concat(bytes(0xFF, 11, 0, 4, 0, 7, 0, 0),     // recognised
                bytes(0xFF, 200, 0, 4, 1, 2, 3, 4),                                          // unknown type
                bytes(0xFF, 1, 0, 9, 0))));                                                  // past the end
        assertArrayEquals(concat(bytes(0, 11, 0, 4, 0, 7, 0, 42), bytes(0x80, 200, 0, 4, 1, 2, 3, 4),
                bytes(0x40, 1, 0, 9, 0)), tlvs(reply));
    }
}
