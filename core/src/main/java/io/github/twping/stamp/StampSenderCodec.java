package io.github.twping.stamp;

import java.lang.foreign.MemorySegment;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.protocol.TestPacketLayout;

/**
 * The Session-Sender's side of a STAMP session as a {@link TestPacketCipher}, so that the client's sender, reply
 * receiver, pacing and statistics ({@code session.ClientTestSession}) run STAMP unchanged. It works in place at the
 * wire boundary: inside the program every timestamp is NTP and every Error Estimate has Z = 0; on the wire the
 * timestamps are in the configured format with the Z flag (RFC 8762 §4.2.1), the SSID and the Extra Padding TLV
 * header are written (RFC 8972 §3, §4.1), and the authenticated format carries HMAC-SHA-256/128 over bytes 0..95
 * (RFC 8762 §4.2.2, §4.3.2). The reflector-side operations are those of {@link StampReflector} and are not offered
 * here. One instance per thread; nothing is allocated per packet.
 */
public final class StampSenderCodec implements TestPacketCipher {
    private final StampSenderSpec spec;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout reflectorLayout;
    private final int ssidOffset;
    private final StampHmac hmac;

    public StampSenderCodec(StampSenderSpec spec) {
        this.spec = spec;
        this.senderLayout = StampLayouts.sender(spec.authenticated());
        this.reflectorLayout = StampLayouts.reflector(spec.authenticated());
        this.ssidOffset = StampLayouts.ssidOffset(spec.authenticated());
        this.hmac = spec.authenticated() ? new StampHmac(spec.key(), StampLayouts.HMAC_COVERED) : null;
    }

    @Override
    public TestPacketLayout senderLayout() {
        return senderLayout;
    }

    @Override
    public TestPacketLayout reflectorLayout() {
        return reflectorLayout;
    }

    /** Writes the SSID and the Extra Padding TLV header (its value, the padding, is already filled). */
    @Override
    public void sealSenderHead(MemorySegment packet) {
        StampWire.uint16(packet, ssidOffset, spec.ssid());
        if (spec.extraPadding() > 0) {
            int at = senderLayout.length();
            StampWire.uint8(packet, at, 0);
            StampWire.uint8(packet, at + 1, StampTlv.EXTRA_PADDING);
            StampWire.uint16(packet, at + 2, spec.extraPadding());
        }
    }

    /** Puts the timestamp into the wire format, marks Z and signs (authenticated). */
    @Override
    public void sealSenderTail(MemorySegment packet) {
        int ts = senderLayout.timestampOffset();
        int ee = senderLayout.errorEstimateOffset();
        TimestampFormat format = spec.format();
        StampWire.int64(packet, ts, format.fromNtp(StampWire.int64(packet, ts)));
        StampWire.uint16(packet, ee, format.markErrorEstimate(StampWire.uint16(packet, ee)));
        if (hmac != null) {
            hmac.sign(packet, 0, StampLayouts.HMAC_COVERED, senderLayout.hmacOffset());
        }
    }

    @Override
    public boolean openSender(MemorySegment packet, int length) {
        throw new UnsupportedOperationException("the STAMP reflector is StampReflector");
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        throw new UnsupportedOperationException("the STAMP reflector is StampReflector");
    }

    /**
     * Verifies the reply (authenticated) and converts its three timestamps to NTP by the Z flags of their Error
     * Estimates (the reflector's for its two, ours for the copied one), clearing Z.
     */
    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        if (length < reflectorLayout.length() || packet.byteSize() < reflectorLayout.length()) {
            return false;
        }
        if (hmac != null && !hmac.verify(packet, 0, StampLayouts.HMAC_COVERED, reflectorLayout.hmacOffset())) {
            return false;
        }
        normalise(packet, reflectorLayout.errorEstimateOffset(), reflectorLayout.timestampOffset(),
                reflectorLayout.receiveTimestampOffset());
        normalise(packet, reflectorLayout.senderErrorEstimateOffset(), reflectorLayout.senderTimestampOffset(), -1);
        return true;
    }

    private static void normalise(MemorySegment packet, int errorOffset, int timestampOffset, int secondOffset) {
        int field = StampWire.uint16(packet, errorOffset);
        TimestampFormat format = TimestampFormat.ofErrorEstimate(field);
        if (format == TimestampFormat.NTP) {
            return;
        }
        StampWire.int64(packet, timestampOffset, format.toNtp(StampWire.int64(packet, timestampOffset)));
        if (secondOffset >= 0) {
            StampWire.int64(packet, secondOffset, format.toNtp(StampWire.int64(packet, secondOffset)));
        }
        StampWire.uint16(packet, errorOffset, field & ~TimestampFormat.Z_BIT);
    }
}
