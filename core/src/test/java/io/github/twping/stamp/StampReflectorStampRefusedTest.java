package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.twping.ffm.ForwardingUdpSocket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.session.ReflectorClock;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A kernel before 4.7 refuses the SO_TIMESTAMPING control message of a stamped send with EINVAL (docs/STAMP.md,
 * "Kernels before 4.7"): the reflector falls back once to unstamped replies and keeps answering; its Follow-Up
 * Telemetry TLVs report no timestamp (all zero). Injected by a forwarding socket whose stamped sends fail so.
 */
class StampReflectorStampRefusedTest {
    private static final int FUT_LENGTH = 44 + StampTlv.HEADER_LENGTH + StampTlv.FOLLOW_UP_TELEMETRY_LENGTH;
    private static final int EINVAL = 22;
    private StampReflector reflector;

    /** The reflector's socket as an old kernel makes it: every stamped send fails with EINVAL, plain sends pass. */
    private static final class OldKernelSocket extends ForwardingUdpSocket {
        final AtomicInteger stampedSends = new AtomicInteger();
        private final int errno;

        OldKernelSocket(UdpSocket socket, int errno) {
            super(socket);
            this.errno = errno;
        }

        @Override
        public int sendStamped(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
            stampedSends.incrementAndGet();
            throw SocketException.of("sendmsg(SO_TIMESTAMPING)", errno);
        }
    }

    @AfterEach
    void close() {
        if (reflector != null) {
            reflector.close();
        }
    }

    private InetSocketAddress start(UdpSocket socket) {
        reflector = new StampReflector(new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP,
                List.of(), 0, 64), socket, ReflectorClock.of(WallClock.system(), 0x8001));
        assumeTrue(reflector.localAddress() != null);
        reflector.start();
        return reflector.localAddress();
    }

    private static UdpSocket reflectorSocket() throws Exception {
        return StampReflector.openSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    }

    private static byte[] request(long seq) {
        ByteBuffer b = ByteBuffer.allocate(FUT_LENGTH);
        b.putInt(0, (int) seq).putLong(4, WallClock.system().nowNtp());
        b.put(44, (byte) StampTlv.FLAG_U).put(45, (byte) StampTlv.FOLLOW_UP_TELEMETRY)
                .putShort(46, (short) StampTlv.FOLLOW_UP_TELEMETRY_LENGTH);
        return b.array();
    }

    @Test
    void anEinvalFallsBackOnceToUnstampedRepliesWithEmptyFollowUps() throws Exception {
        OldKernelSocket socket = new OldKernelSocket(reflectorSocket(), EINVAL);
        InetSocketAddress to = start(socket);
        int n = 3 * StampReflector.TX_DRAIN_EVERY;
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            client.setSoTimeout(10_000);
            for (int i = 0; i < n; i++) {
                byte[] req = request(i);
                client.send(new DatagramPacket(req, req.length, to));
                byte[] buffer = new byte[2048];
                DatagramPacket p = new DatagramPacket(buffer, buffer.length);
                client.receive(p);
                ByteBuffer reply = ByteBuffer.wrap(buffer, 0, p.getLength());
                assertEquals(FUT_LENGTH, p.getLength());
                assertEquals(i, reply.getInt(24), "the reply answers request " + i);
                assertEquals(0, reply.get(44) & (StampTlv.FLAG_U | StampTlv.FLAG_M), "Follow-Up TLV answered");
                assertEquals(0, reply.getInt(48), "no Follow-Up sequence number: no reply was stamped");
                assertEquals(0, reply.getLong(52), "no Follow-Up timestamp");
                assertEquals(0, reply.get(60), "no Timestamp Mode");
            }
        }
        reflector.stop();
        assertTrue(reflector.awaitEnd(TimeUnit.SECONDS.toNanos(10)), "reflector thread ended");
        assertNull(reflector.failure(), "the reflector did not stop on the refused send");
        assertEquals(n, reflector.reflected());
        assertEquals(1, socket.stampedSends.get(), "one stamped send tried, then plain sends");
        assertEquals(0, reflector.followUpsReported());
        assertEquals(0, reflector.txDrains(), "no stamp to read");
        SocketException refusal = reflector.stampedSendsRefusal();
        assertNotNull(refusal);
        assertEquals(EINVAL, refusal.errno());
        assertEquals("sendmsg(SO_TIMESTAMPING): Invalid argument", refusal.getMessage()); // twampd's line quotes it
    }

    @Test
    void anotherSendErrorStillStopsTheReflector() throws Exception {
        OldKernelSocket socket = new OldKernelSocket(reflectorSocket(), 1); // EPERM: not the old kernel's answer
        InetSocketAddress to = start(socket);
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            byte[] req = request(0);
            client.send(new DatagramPacket(req, req.length, to));
        }
        assertTrue(reflector.awaitEnd(TimeUnit.SECONDS.toNanos(30)), "the reflector stopped on the error");
        assertNotNull(reflector.failure());
        assertNull(reflector.stampedSendsRefusal());
        assertEquals(0, reflector.reflected());
    }
}
