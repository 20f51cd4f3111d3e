package io.github.twping.stamp;

import io.github.twping.protocol.StampLayouts;
import io.github.twping.protocol.StampTlvFlyweight;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;

import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.time.WallClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import com.sun.management.ThreadMXBean;
import java.lang.foreign.Arena;

/**
 * The sender codec's per-packet path with every RFC 8972 TLV allocates nothing: sealing a request, and reading a
 * reply's TLVs into the telemetry (HMAC TLV verified when authenticated). Windows of 2,000 packets measured with the
 * thread's allocation counter until the JIT has compiled the path.
 */
class StampSenderCodecAllocationTest {
    private static final int WINDOW = 2_000;
    private static final int WINDOWS = 40;
    private static final byte[] KEY = {4, 4, 4, 4};

    @ParameterizedTest(name = "auth={0}")
    @CsvSource({"false", "true"})
    void sealAndOpenAreAllocationFree(boolean auth) {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counting is not supported");
        StampTlvRequest tlvs = new StampTlvRequest(true, 46, true, 1, 1, true, auth, true);
        StampSenderSpec spec = new StampSenderSpec(auth, auth ? KEY : null, TimestampFormat.NTP, 3, 12, tlvs);
        StampTelemetry telemetry = new StampTelemetry(WINDOW * WINDOWS, tlvs);
        StampSenderCodec sender = new StampSenderCodec(spec);
        StampSenderCodec receiver = new StampSenderCodec(spec, telemetry);
        StampHmac hmac = auth ? new StampHmac(KEY, 4096) : null;
        int length = sender.senderLayout().length() + spec.tlvBytes();
        MemorySegment request = Arena.ofAuto().allocate(length);
        MemorySegment reply = Arena.ofAuto().allocate(length);
        SenderPacket out = new SenderPacket(sender.senderLayout()).wrap(request);
        ReflectorPacket in = new ReflectorPacket(receiver.reflectorLayout()).wrap(reply);
        int base = sender.senderLayout().length();
        int hmacAt = sender.tlvOffset(StampTlv.HMAC);
        long now = WallClock.system().nowNtp();
        long best = Long.MAX_VALUE;
        long seq = 0;
        StampTlvFlyweight tlv = new StampTlvFlyweight();
        for (int w = 0; w < WINDOWS && best > 0; w++) {
            long allocated = 0;
            for (int i = 0; i < WINDOW; i++, seq++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                out.clearMbz().sequenceNumber(seq);
                sender.sealSenderHead(request);
                out.timestampNtp(now).errorEstimate(0x0001);
                sender.sealSenderTail(request);
                allocated += threads.getCurrentThreadAllocatedBytes() - before;
                // a reply as our reflector builds it: the request's TLVs, U cleared, the fields filled
                MemorySegment.copy(request, base, reply, base, length - base);
                for (long at = base; at < length; at = tlv.next()) {
                    tlv.wrap(reply, at).flags(0);
                }
                in.clearMbz().sequenceNumber(seq).timestampNtp(now).errorEstimate(0x0001).receiveTimestampNtp(now)
                        .ssid(3).senderSequenceNumber(seq).senderTimestampNtp(now).senderErrorEstimate(0x0001)
                        .senderTtl(64);
                tlv.wrap(reply, sender.tlvOffset(StampTlv.FOLLOW_UP_TELEMETRY))
                        .followUp(Math.max(0, seq - 1), seq == 0 ? 0 : now, StampTlv.METHOD_SW_LOCAL);
                if (auth) {
                    hmac.signTlvs(reply, base, hmacAt, hmacAt + 4);
                    hmac.sign(reply, 0, StampLayouts.HMAC_COVERED, receiver.reflectorLayout().hmacOffset());
                }
                before = threads.getCurrentThreadAllocatedBytes();
                boolean ok = receiver.openReflector(reply, length);
                allocated += threads.getCurrentThreadAllocatedBytes() - before;
                assertTrue(ok);
            }
            best = Math.min(best, allocated);
        }
        assertTrue(best == 0, "the best window of " + WINDOW + " packets allocated " + best + " bytes");
        assertEquals(seq - 1, telemetry.followUps(), "every reply's Follow-Up matched the previous one");
    }
}
