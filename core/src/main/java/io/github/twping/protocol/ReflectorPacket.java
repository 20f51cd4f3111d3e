package io.github.twping.protocol;

import static io.github.twping.protocol.TestPacketLayouts.LONG_BE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Flyweight for an unauthenticated TWAMP-Test Session-Reflector packet (RFC 5357 section 4.2.1, modes
 * Open and Mixed; RFC 5357 §4.2.1).
 *
 * <pre>
 *  0: Sequence Number (4)  4: Timestamp (8)  12: Error Estimate (2)  14: MBZ (2)
 * 16: Receive Timestamp (8)  24: Sender Sequence Number (4)  28: Sender Timestamp (8)
 * 36: Sender Error Estimate (2)  38: MBZ (2)  40: Sender TTL (1)  41: Packet Padding
 * </pre>
 */
public final class ReflectorPacket {
    public static final int SEQUENCE_NUMBER_OFFSET = 0;
    public static final int TIMESTAMP_OFFSET = 4;
    public static final int ERROR_ESTIMATE_OFFSET = 12;
    public static final int MBZ_1_OFFSET = 14;
    public static final int RECEIVE_TIMESTAMP_OFFSET = 16;
    public static final int SENDER_SEQUENCE_NUMBER_OFFSET = 24;
    public static final int SENDER_TIMESTAMP_OFFSET = 28;
    public static final int SENDER_ERROR_ESTIMATE_OFFSET = 36;
    public static final int MBZ_2_OFFSET = 38;
    public static final int SENDER_TTL_OFFSET = 40;
    public static final int PADDING_OFFSET = 41;
    /** Minimum length (no padding). */
    public static final int LENGTH = 41;

    private MemorySegment segment;
    private long base;

    /** Wraps a packet starting at offset 0 of {@code segment}. */
    public ReflectorPacket wrap(MemorySegment segment) {
        return wrap(segment, 0);
    }

    /** Wraps a packet starting at {@code offset} of {@code segment}. */
    public ReflectorPacket wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.base = offset;
        return this;
    }

    /** Returns the wrapped segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Returns the reply length twampd uses: {@code max(requestLength, 41)} (RFC 5357 §4.2.1). */
    public static int replyLength(int requestLength) {
        return Math.max(requestLength, LENGTH);
    }

    public long sequenceNumber() {
        return TestPacketLayouts.getUnsignedInt(segment, base + SEQUENCE_NUMBER_OFFSET);
    }

    public ReflectorPacket sequenceNumber(long sequenceNumber) {
        TestPacketLayouts.putUnsignedInt(segment, base + SEQUENCE_NUMBER_OFFSET, sequenceNumber);
        return this;
    }

    public long timestampNtp() {
        return segment.get(LONG_BE, base + TIMESTAMP_OFFSET);
    }

    public ReflectorPacket timestampNtp(long timestampNtp) {
        segment.set(LONG_BE, base + TIMESTAMP_OFFSET, timestampNtp);
        return this;
    }

    public int errorEstimate() {
        return TestPacketLayouts.getUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET);
    }

    public ReflectorPacket errorEstimate(int errorEstimate) {
        TestPacketLayouts.putUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET, errorEstimate);
        return this;
    }

    public long receiveTimestampNtp() {
        return segment.get(LONG_BE, base + RECEIVE_TIMESTAMP_OFFSET);
    }

    public ReflectorPacket receiveTimestampNtp(long receiveTimestampNtp) {
        segment.set(LONG_BE, base + RECEIVE_TIMESTAMP_OFFSET, receiveTimestampNtp);
        return this;
    }

    public long senderSequenceNumber() {
        return TestPacketLayouts.getUnsignedInt(segment, base + SENDER_SEQUENCE_NUMBER_OFFSET);
    }

    public ReflectorPacket senderSequenceNumber(long senderSequenceNumber) {
        TestPacketLayouts.putUnsignedInt(segment, base + SENDER_SEQUENCE_NUMBER_OFFSET, senderSequenceNumber);
        return this;
    }

    public long senderTimestampNtp() {
        return segment.get(LONG_BE, base + SENDER_TIMESTAMP_OFFSET);
    }

    public ReflectorPacket senderTimestampNtp(long senderTimestampNtp) {
        segment.set(LONG_BE, base + SENDER_TIMESTAMP_OFFSET, senderTimestampNtp);
        return this;
    }

    public int senderErrorEstimate() {
        return TestPacketLayouts.getUnsignedShort(segment, base + SENDER_ERROR_ESTIMATE_OFFSET);
    }

    public ReflectorPacket senderErrorEstimate(int senderErrorEstimate) {
        TestPacketLayouts.putUnsignedShort(segment, base + SENDER_ERROR_ESTIMATE_OFFSET, senderErrorEstimate);
        return this;
    }

    /** Returns the Sender TTL, 0..255. */
    public int senderTtl() {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, base + SENDER_TTL_OFFSET));
    }

    public ReflectorPacket senderTtl(int senderTtl) {
        segment.set(ValueLayout.JAVA_BYTE, base + SENDER_TTL_OFFSET, (byte) senderTtl);
        return this;
    }

    /** Zeroes both MBZ ranges. */
    public ReflectorPacket clearMbz() {
        TestPacketLayouts.zero(segment, base + MBZ_1_OFFSET, 2);
        TestPacketLayouts.zero(segment, base + MBZ_2_OFFSET, 2);
        return this;
    }
}
