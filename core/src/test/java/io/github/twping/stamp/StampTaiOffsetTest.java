package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.session.ReflectorClock;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;

/**
 * PTP-format timestamps are TAI (RFC 8762 §4.2.1, IEEE 1588): the conversion with a TAI-UTC offset both ways, and a
 * loopback exchange where sender and reflector disagree on the format (one NTP, one PTP) whose one-way delays are
 * near 0 when both know the offset, 37 s off when the NTP side does not. The offset is injected ({@link
 * StampSenderSpec#taiSeconds}, {@link StampReflector#taiOffset}): this machine's kernel may well report 0.
 */
class StampTaiOffsetTest {
    private static final int TAI = 37;
    private static final int ERROR = 0x8105;
    private static final long SECOND_NS = 1_000_000_000L;

    @Test
    void conversionWithA37SecondOffsetBothWays() {
        long epochNs = 1_700_000_000_123_456_789L;
        long wire = TimestampFormat.PTP.fromEpochNanos(epochNs, TAI);
        assertEquals(1_700_000_000L + TAI, wire >>> 32, "PTP seconds are TAI: UTC + 37");
        assertEquals(123_456_789L, wire & 0xFFFF_FFFFL);
        assertEquals(NtpTime.fromEpochNanos(epochNs), TimestampFormat.PTP.toNtp(wire, TAI), "back to UTC");
        long ntp = NtpTime.fromEpochNanos(epochNs);
        long fromNtp = TimestampFormat.PTP.fromNtp(ntp, TAI);
        assertEquals(wire >>> 32, fromNtp >>> 32);
        assertTrue(Math.abs((wire & 0xFFFF_FFFFL) - (fromNtp & 0xFFFF_FFFFL)) <= 1, "NTP fraction rounding");
        // the offset unknown (0): PTP seconds are UTC seconds, as before
        assertEquals(1_700_000_000L, TimestampFormat.PTP.fromEpochNanos(epochNs, 0) >>> 32);
        assertEquals(TimestampFormat.PTP.fromEpochNanos(epochNs), TimestampFormat.PTP.fromEpochNanos(epochNs, 0));
        // read without the offset, a TAI stamp is 37 s late
        assertEquals(TAI * SECOND_NS, NtpTime.signedDurationToNanos(TimestampFormat.PTP.toNtp(wire, 0)
                - TimestampFormat.PTP.toNtp(wire, TAI)));
        // NTP timestamps ignore the offset
        assertEquals(NtpTime.fromEpochNanos(epochNs), TimestampFormat.NTP.fromEpochNanos(epochNs, TAI));
        assertEquals(ntp, TimestampFormat.NTP.toNtp(ntp, TAI));
        assertEquals(ntp, TimestampFormat.NTP.fromNtp(ntp, TAI));
    }

    @Test
    void ntpSenderAgainstATaiReflectorSeesDelaysNearZero() throws Exception {
        StampReflector reflector = new StampReflector(spec(TimestampFormat.PTP), StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0),
                ReflectorClock.of(WallClock.system(), ERROR)).taiOffset(TAI);
        try (reflector; DatagramSocket client = client()) {
            reflector.start();
            long unixBefore = System.currentTimeMillis() / 1000;
            byte[] reply = exchange(client, reflector.localAddress(), request(TimestampFormat.NTP, 0));
            long unixAfter = System.currentTimeMillis() / 1000;
            long t2Seconds = ByteBuffer.wrap(reply).getLong(16) >>> 32;
            assertTrue(t2Seconds >= unixBefore + TAI && t2Seconds <= unixAfter + TAI + 1,
                    "the reflector's PTP seconds are TAI: " + t2Seconds + " vs unix " + unixBefore);

            long[] known = delays(reply, TAI);
            assertTrue(Math.abs(known[0]) < 5 * SECOND_NS, "forward delay near 0: " + known[0]);
            assertTrue(Math.abs(known[1]) < 5 * SECOND_NS, "backward delay near 0: " + known[1]);
            // the sender without the offset (what every run did before): 37 s off in each direction
            long[] unknown = delays(reply, 0);
            assertTrue(Math.abs(unknown[0] - TAI * SECOND_NS) < 5 * SECOND_NS, "forward +37 s: " + unknown[0]);
            assertTrue(Math.abs(unknown[1] + TAI * SECOND_NS) < 5 * SECOND_NS, "backward -37 s: " + unknown[1]);
        }
    }

    @Test
    void taiPtpSenderAgainstAnNtpReflectorSeesDelaysNearZero() throws Exception {
        StampReflector reflector = new StampReflector(spec(TimestampFormat.NTP), StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0),
                ReflectorClock.of(WallClock.system(), ERROR));
        try (reflector; DatagramSocket client = client()) {
            reflector.start();
            long unixNow = System.currentTimeMillis() / 1000;
            byte[] request = request(TimestampFormat.PTP, TAI);
            long t1Seconds = ByteBuffer.wrap(request).getLong(4) >>> 32;
            assertTrue(Math.abs(t1Seconds - (unixNow + TAI)) <= 1, "our PTP seconds are TAI: " + t1Seconds);
            byte[] reply = exchange(client, reflector.localAddress(), request);
            long[] d = delays(reply, TAI);
            assertTrue(Math.abs(d[0]) < 5 * SECOND_NS, "forward delay near 0: " + d[0]);
            assertTrue(Math.abs(d[1]) < 5 * SECOND_NS, "backward delay near 0: " + d[1]);
        }
    }

    private static StampReflectorSpec spec(TimestampFormat format) {
        return new StampReflectorSpec(false, false, null, false, format, List.of(), 0, 64);
    }

    private static DatagramSocket client() throws Exception {
        DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client.setSoTimeout(10_000);
        return client;
    }

    /** A 44-octet request sealed by our sender codec: t1 now, in {@code format} with {@code tai}. */
    private static byte[] request(TimestampFormat format, int tai) {
        byte[] bytes = new byte[StampLayouts.sender(false).length()];
        MemorySegment seg = MemorySegment.ofArray(bytes);
        new SenderPacket(StampLayouts.sender(false)).wrap(seg).sequenceNumber(0)
                .timestampNtp(NtpTime.fromEpochNanos(System.currentTimeMillis() * 1_000_000L)).errorEstimate(ERROR);
        StampSenderCodec codec = new StampSenderCodec(new StampSenderSpec(false, null, format, 0, 0,
                StampTlvRequest.NONE, 0, tai));
        codec.sealSenderHead(seg);
        codec.sealSenderTail(seg);
        return bytes;
    }

    private static byte[] exchange(DatagramSocket client, InetSocketAddress to, byte[] request) throws Exception {
        client.send(new DatagramPacket(request, request.length, to));
        byte[] buffer = new byte[2048];
        DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        client.receive(p);
        return Arrays.copyOf(buffer, p.getLength());
    }

    /** @return {forward t2 - t1, backward t4 - t3} in ns, the reply opened by an NTP sender knowing {@code tai} */
    private static long[] delays(byte[] reply, int tai) {
        long t4 = NtpTime.fromEpochNanos(System.currentTimeMillis() * 1_000_000L);
        byte[] copy = reply.clone();
        MemorySegment seg = MemorySegment.ofArray(copy);
        StampSenderCodec codec = new StampSenderCodec(new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0,
                StampTlvRequest.NONE, 0, tai));
        assertTrue(codec.openReflector(seg, copy.length));
        ReflectorPacket p = new ReflectorPacket(StampLayouts.reflector(false)).wrap(seg);
        return new long[] {NtpTime.signedDurationToNanos(p.receiveTimestampNtp() - p.senderTimestampNtp()),
                NtpTime.signedDurationToNanos(t4 - p.timestampNtp())};
    }
}
