package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;

import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.protocol.StampTlvFlyweight;
import org.junit.jupiter.api.Test;

/**
 * Issue 26 item 14 (first part): a reflector that drops, truncates or zeroes the TLVs of our requests shows in the
 * sender's telemetry ({@code missing}, the TLV report's "replies missing a TLV we sent" and {@code flags.missing}
 * in the JSON), where U, M and I all stay 0.
 */
class StampMissingTlvTest {
    private static final int BASE = StampLayouts.UNAUTHENTICATED_LENGTH;

    @Test
    void repliesWithoutOurTlvsAreCounted() {
        StampTlvRequest tlvs = StampTlvRequest.parse("ts,dm", false);
        StampSenderSpec spec = new StampSenderSpec(false, null, TimestampFormat.NTP, 1, 0, tlvs);
        StampTelemetry telemetry = new StampTelemetry(10, tlvs);
        StampSenderCodec sender = new StampSenderCodec(spec);
        StampSenderCodec receiver = new StampSenderCodec(spec, telemetry);
        int length = BASE + tlvs.bytes();
        MemorySegment request = MemorySegment.ofArray(new byte[length]);
        new SenderPacket(StampLayouts.UNAUTHENTICATED_SENDER).wrap(request).clearMbz().sequenceNumber(0);
        sender.sealSenderHead(request);
        StampTlvFlyweight tlv = new StampTlvFlyweight();

        MemorySegment reply = MemorySegment.ofArray(new byte[length]);
        MemorySegment.copy(request, BASE, reply, BASE, length - BASE);
        for (long at = BASE; at < length; at = tlv.next()) {
            tlv.wrap(reply, at).flags(0);                  // answered, as our reflector does
        }
        new ReflectorPacket(StampLayouts.UNAUTHENTICATED_REFLECTOR).wrap(reply).senderSequenceNumber(0)
                .ssid(1);                                  // copied, as a reflector does (RFC 8972 §3)
        assertTrue(receiver.openReflector(reply, length));
        assertEquals(0, telemetry.missing());

        reply.asSlice(BASE).fill((byte) 0);               // a reflector that zeroes the TLVs
        assertTrue(receiver.openReflector(reply, length));
        assertEquals(1, telemetry.missing());
        assertEquals(0, telemetry.unrecognised() + telemetry.malformed() + telemetry.integrityFailed(),
                "the flags alone do not show it");

        assertTrue(receiver.openReflector(reply, BASE)); // a reflector that answers with the base packet only
        assertEquals(2, telemetry.missing());
    }
}
