package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Location TLV (RFC 8972 §4.2): our sender's layout (ports, four address sub-TLVs), the reflector filling the
 * ports and the address sub-TLVs of the packet's family over IPv4 and IPv6 (U on the other family and on the
 * destination of a wildcard-bound reflector, M on bad sub-TLV lengths), the sender's telemetry reading them; and
 * ECN in Class of Service (§4.4): the reflector reports the ECN it received and sends the reply with DSCP1 and that
 * ECN, observed on a loopback socket.
 */
class StampLocationEcnTest {
    private static final StampTlvRequest LOCATION = new StampTlvRequest(false, -1, false, -1, 0, false, false, true);
    private StampReflector reflector;
    private UdpSocket client;
    private final Arena arena = Arena.ofShared();
    private final ReceivedPacket meta = new ReceivedPacket();

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (reflector != null) {
            reflector.close();
        }
        arena.close();
    }

    private static byte[] senderPacket(StampSenderSpec spec, long seq) {
        StampSenderCodec codec = new StampSenderCodec(spec);
        int length = codec.senderLayout().length() + spec.tlvBytes();
        MemorySegment packet = MemorySegment.ofArray(new byte[length]);
        SenderPacket fields = new SenderPacket(codec.senderLayout()).wrap(packet);
        fields.clearMbz().sequenceNumber(seq);
        codec.sealSenderHead(packet);
        fields.timestampNtp(WallClock.system().nowNtp()).errorEstimate(0x0001);
        codec.sealSenderTail(packet);
        return packet.toArray(ValueLayout.JAVA_BYTE);
    }

    private InetSocketAddress start(String reflectorBind, String clientBind, int clientTos) throws Exception {
        reflector = new StampReflector(new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP,
                List.of(), 0, 16), StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getByName(reflectorBind), 0), 0), null);
        reflector.start();
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().bindAddress(InetAddress.getByName(clientBind))
                .receiveTos(true).timestamping(Timestamping.RX_SOFTWARE);
        if (clientTos != 0) {
            b.tos(clientTos);
        }
        client = UdpSocket.open(b.build());
        assumeTrue(client.isNative() && client.capabilities().receiveTos(), "needs the FFM socket (TOS received)");
        return new InetSocketAddress(InetAddress.getByName(clientBind), reflector.localAddress().getPort());
    }

    private ByteBuffer exchange(InetSocketAddress to, byte[] request) throws Exception {
        MemorySegment out = arena.allocate(request.length);
        MemorySegment.copy(request, 0, out, ValueLayout.JAVA_BYTE, 0, request.length);
        MemorySegment in = arena.allocate(2048);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        client.send(out, request.length, to);
        while (System.nanoTime() < deadline) {
            int n = client.receive(in, meta, TimeUnit.SECONDS.toNanos(1));
            if (n > 0) {
                return ByteBuffer.wrap(in.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
            }
        }
        throw new AssertionError("no reply");
    }

    @Test
    void senderLocationTlvHasTheRfcLayout() {
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0, LOCATION);
        assertEquals(StampTlv.HEADER_LENGTH + 60, spec.tlvBytes(), "ports + 2 x (4 + 4) + 2 x (4 + 16)");
        ByteBuffer p = ByteBuffer.wrap(senderPacket(spec, 0));
        int at = new StampSenderCodec(spec).tlvOffset(StampTlv.LOCATION);
        assertEquals(44, at, "the only TLV: right after the base packet");
        assertEquals(StampTlv.FLAG_U, p.get(at) & 0xFF, "sent with U = 1 (RFC 8972 §4)");
        assertEquals(StampTlv.LOCATION, p.get(at + 1));
        assertEquals(60, p.getShort(at + 2));
        assertEquals(0, p.getInt(at + 4), "Destination Port and Source Port zero, for the reflector");
        int[][] subs = {{StampTlv.SUB_DESTINATION_IPV4, 4}, {StampTlv.SUB_SOURCE_IPV4, 4},
            {StampTlv.SUB_DESTINATION_IPV6, 16}, {StampTlv.SUB_SOURCE_IPV6, 16}};
        int sub = at + 8;
        for (int[] s : subs) {
            assertEquals(0, p.get(sub), "sub-TLV flags");
            assertEquals(s[0], p.get(sub + 1), "sub-TLV type at " + sub);
            assertEquals(s[1], p.getShort(sub + 2), "sub-TLV length at " + sub);
            for (int i = 0; i < s[1]; i++) {
                assertEquals(0, p.get(sub + 4 + i), "zero address value");
            }
            sub += 4 + s[1];
        }
        assertEquals(p.capacity(), sub, "the Location TLV ends the packet");
        assertTrue(StampTlvRequest.parse("loc", false).location());
        assertTrue(!StampTlvRequest.parse("all", false).location(), "all does not include loc");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"127.0.0.1, 4", "::1, 16"})
    void reflectorFillsThePortsAndTheAddressesOfThePacketsFamily(String address, int length) throws Exception {
        InetSocketAddress to = start(address, address, 0);
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0, LOCATION);
        byte[] request = senderPacket(spec, 0);
        ByteBuffer r = exchange(to, request);
        assertEquals(request.length, r.capacity());
        int at = 44;
        assertEquals(0, r.get(at), "Location answered: U = M = I = 0");
        assertEquals(to.getPort(), r.getShort(at + 4) & 0xFFFF, "Destination Port: the reflector's");
        assertEquals(client.localAddress().getPort(), r.getShort(at + 6) & 0xFFFF, "Source Port: the client's");
        byte[] expected = InetAddress.getByName(address).getAddress();
        int v4 = at + 8;
        int v6 = at + 24;
        int filled = length == 4 ? v4 : v6;
        int other = length == 4 ? v6 : v4;
        for (int s = 0; s < 2; s++) {
            int sub = filled + s * (4 + length);
            assertEquals(0, r.get(sub), "filled sub-TLV: no flags");
            byte[] value = new byte[length];
            r.get(sub + 4, value);
            assertArrayEquals(expected, value, (s == 0 ? "destination" : "source") + " address");
        }
        int otherLength = length == 4 ? 16 : 4;
        for (int s = 0; s < 2; s++) {
            int sub = other + s * (4 + otherLength);
            assertEquals((byte) StampTlv.FLAG_U, r.get(sub), "the other family's sub-TLV: U");
            for (int i = 0; i < otherLength; i++) {
                assertEquals(0, r.get(sub + 4 + i), "left zero");
            }
        }
        // the sender reads it into its telemetry
        StampTelemetry telemetry = new StampTelemetry(4, LOCATION);
        StampSenderCodec codec = new StampSenderCodec(spec, telemetry);
        MemorySegment reply = MemorySegment.ofArray(r.array().clone());
        assertTrue(codec.openReflector(reply, r.capacity()));
        assertEquals(1, telemetry.locations());
        assertEquals(InetAddress.getByName(address), telemetry.locationSource());
        assertEquals(InetAddress.getByName(address), telemetry.locationDestination());
        assertEquals(client.localAddress().getPort(), telemetry.locationSourcePort());
        assertEquals(to.getPort(), telemetry.locationDestinationPort());
        assertEquals(0, telemetry.unrecognised() + telemetry.malformed());
    }

    @Test
    void wildcardBoundReflectorReportsTheDestinationTheKernelSawAndBadSubTlvsGetM() throws Exception {
        InetSocketAddress to = start("0.0.0.0", "127.0.0.1", 0);
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0, LOCATION);
        ByteBuffer r = exchange(to, senderPacket(spec, 0));
        assertEquals(0, r.get(52), "destination IPv4 filled from the kernel's IP_PKTINFO, bound to 0.0.0.0");
        assertArrayEquals(new byte[] {127, 0, 0, 1}, Arrays.copyOfRange(r.array(), 56, 60));
        assertEquals(0, r.get(60), "source IPv4 filled");
        assertArrayEquals(new byte[] {127, 0, 0, 1}, Arrays.copyOfRange(r.array(), 64, 68));
        // sent to 127.0.0.2: the destination is the address the request was sent to, not a bound one
        ByteBuffer other = exchange(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), to.getPort()),
                senderPacket(spec, 1));
        assertArrayEquals(new byte[] {127, 0, 0, 2}, Arrays.copyOfRange(other.array(), 56, 60));

        // a source IPv4 sub-TLV of length 5, then an unknown sub-TLV type, then one running past the value
        ByteBuffer bad = ByteBuffer.allocate(44 + 4 + 4 + 9 + 6 + 4);
        bad.put(44, (byte) StampTlv.FLAG_U).put(45, (byte) StampTlv.LOCATION).putShort(46, (short) (4 + 9 + 6 + 4));
        bad.put(53, (byte) StampTlv.SUB_SOURCE_IPV4).putShort(54, (short) 5);
        bad.put(62, (byte) 99).putShort(63, (short) 2);
        bad.put(68, (byte) StampTlv.SUB_SOURCE_IPV6).putShort(69, (short) 16);
        long malformedBefore = reflector.malformedTlvs();
        ByteBuffer b = exchange(to, bad.array());
        assertEquals((byte) StampTlv.FLAG_M, b.get(44), "Location with a bad sub-TLV: M");
        assertEquals((byte) StampTlv.FLAG_M, b.get(52), "sub-TLV of a wrong length: M");
        assertEquals((byte) StampTlv.FLAG_U, b.get(61), "unknown sub-TLV type: U");
        assertEquals((byte) StampTlv.FLAG_M, b.get(67), "sub-TLV past the value: M");
        assertEquals(to.getPort(), b.getShort(48) & 0xFFFF, "the ports are still filled");
        assertTrue(stopped());
        assertEquals(malformedBefore + 1, reflector.malformedTlvs());
    }

    private boolean stopped() throws InterruptedException {
        reflector.stop();
        return reflector.awaitEnd(TimeUnit.SECONDS.toNanos(10));
    }

    @ParameterizedTest(name = "{0} ECN {1}")
    @CsvSource({"127.0.0.1, 0", "127.0.0.1, 1", "127.0.0.1, 2", "127.0.0.1, 3", "::1, 1", "::1, 2"})
    void reflectorReportsTheReceivedEcnAndRepliesWithDscp1AndEc1(String address, int ecn) throws Exception {
        InetSocketAddress to = start(address, address, 10 << 2 | ecn);
        StampTlvRequest cos = new StampTlvRequest(false, 34, false, -1, 0, false, false);
        // our sender asks for its own ECN on the reply: EC1 = --ecn (draft-ietf-ippm-stamp-cos-ecn)
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0, cos, ecn, 0);
        for (int i = 0; i < 3; i++) {
            ByteBuffer r = exchange(to, senderPacket(spec, i));
            int word = r.getShort(48) & 0xFFFF;
            assertEquals(0, r.get(44), "Class of Service answered");
            assertEquals(34, word >> 10, "DSCP1 kept");
            assertEquals(10, (word >> 4) & 0x3F, "DSCP2: received");
            assertEquals(ecn, (word >> 2) & 3, "ECN: received");
            assertEquals(0, word & 3, "RP = 0");
            assertEquals(ecn << 6 | 3 << 4, r.get(50) & 0xFF, "EC1 kept, RPE 0b11: the reply carries EC1");
            assertEquals(34 << 2 | ecn, meta.tos(), "the reply left with DSCP1 and EC1");
        }
        // an RFC 8972 sender (EC1 = 0): the reply is Not-ECT, whatever the ECN received
        ByteBuffer plain = exchange(to, senderPacket(new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0, cos),
                5));
        assertEquals(ecn, (plain.getShort(48) >> 2) & 3, "EC2: received");
        assertEquals(34 << 2, meta.tos(), "EC1 Not-ECT");
        // without the TLV the reply goes back to the reflector's own TOS (0)
        exchange(to, Arrays.copyOf(senderPacket(new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0), 9),
                44));
        assertEquals(0, meta.tos());
    }
}
