package io.github.twping.protocol;

import static io.github.twping.protocol.Wire.LONG_BE;

/**
 * Flyweight for a TWAMP-Test Session-Reflector packet (RFC 5357 §4.2.1) in one of the reflector layouts:
 * {@link TestPacketLayout#UNAUTHENTICATED_REFLECTOR} (modes Open and Mixed) or
 * {@link TestPacketLayout#AUTHENTICATED_REFLECTOR} (Authenticated and Encrypted). Besides the reflector's own
 * sequence number, timestamp and error estimate it carries its receive timestamp and the copied sender fields.
 */
public final class ReflectorPacket extends TestPacketFlyweight<ReflectorPacket> {

    /** A flyweight over {@code layout}, which must be a {@link TestPacketLayout.Role#REFLECTOR} layout. */
    public ReflectorPacket(TestPacketLayout layout) {
        super(layout, TestPacketLayout.Role.REFLECTOR);
    }

    /** A flyweight over the reflector layout of {@code mode}. */
    public static ReflectorPacket forMode(Mode mode) {
        return new ReflectorPacket(TestPacketLayout.reflectorFor(mode));
    }

    public long receiveTimestampNtp() {
        return segment.get(LONG_BE, base + layout.receiveTimestampOffset());
    }

    public ReflectorPacket receiveTimestampNtp(long receiveTimestampNtp) {
        segment.set(LONG_BE, base + layout.receiveTimestampOffset(), receiveTimestampNtp);
        return this;
    }

    /** Returns the Sender TTL, 0..255. */
    public int senderTtl() {
        return Wire.uint8(segment, base + layout.senderTtlOffset());
    }

    public ReflectorPacket senderTtl(int senderTtl) {
        Wire.uint8(segment, base + layout.senderTtlOffset(), senderTtl);
        return this;
    }

    public long senderSequenceNumber() {
        return Wire.uint32(segment, base + layout.senderSequenceOffset());
    }

    public ReflectorPacket senderSequenceNumber(long senderSequenceNumber) {
        Wire.uint32(segment, base + layout.senderSequenceOffset(), senderSequenceNumber);
        return this;
    }

    /** Returns the copied sender error estimate. */
    public int senderErrorEstimate() {
        return Wire.uint16(segment, base + layout.senderErrorEstimateOffset());
    }

    public ReflectorPacket senderErrorEstimate(int senderErrorEstimate) {
        Wire.uint16(segment, base + layout.senderErrorEstimateOffset(), senderErrorEstimate);
        return this;
    }

    public long senderTimestampNtp() {
        return segment.get(LONG_BE, base + layout.senderTimestampOffset());
    }

    public ReflectorPacket senderTimestampNtp(long senderTimestampNtp) {
        segment.set(LONG_BE, base + layout.senderTimestampOffset(), senderTimestampNtp);
        return this;
    }
}
