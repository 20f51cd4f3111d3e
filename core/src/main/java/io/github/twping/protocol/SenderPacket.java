package io.github.twping.protocol;

import static io.github.twping.protocol.TestPacketLayouts.LONG_BE;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight for an unauthenticated TWAMP-Test Session-Sender packet (RFC 5357 section 4.1.2, modes
 * Open and Mixed; RFC 5357 §4.1.2).
 *
 * <pre>
 *  0: Sequence Number (4)   4: Timestamp (8)   12: Error Estimate (2)   14: Packet Padding
 * </pre>
 * No I/O, no crypto, no clock reads; the sequence number is an unsigned 32-bit value in a {@code long}.
 */
public final class SenderPacket {
    public static final int SEQUENCE_NUMBER_OFFSET = 0;
    public static final int TIMESTAMP_OFFSET = 4;
    public static final int ERROR_ESTIMATE_OFFSET = 12;
    public static final int PADDING_OFFSET = 14;
    /** Minimum length (no padding). */
    public static final int LENGTH = 14;

    private MemorySegment segment;
    private long base;

    /** Wraps a packet starting at offset 0 of {@code segment}. */
    public SenderPacket wrap(MemorySegment segment) {
        return wrap(segment, 0);
    }

    /** Wraps a packet starting at {@code offset} of {@code segment}. */
    public SenderPacket wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.base = offset;
        return this;
    }

    /** Returns the wrapped segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Returns the packet length for a Padding Length from Request-TW-Session. */
    public static int length(int paddingLength) {
        return LENGTH + paddingLength;
    }

    public long sequenceNumber() {
        return TestPacketLayouts.getUnsignedInt(segment, base + SEQUENCE_NUMBER_OFFSET);
    }

    public SenderPacket sequenceNumber(long sequenceNumber) {
        TestPacketLayouts.putUnsignedInt(segment, base + SEQUENCE_NUMBER_OFFSET, sequenceNumber);
        return this;
    }

    public long timestampNtp() {
        return segment.get(LONG_BE, base + TIMESTAMP_OFFSET);
    }

    public SenderPacket timestampNtp(long timestampNtp) {
        segment.set(LONG_BE, base + TIMESTAMP_OFFSET, timestampNtp);
        return this;
    }

    /** Returns the 16-bit Error Estimate field (see {@code ErrorEstimate}). */
    public int errorEstimate() {
        return TestPacketLayouts.getUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET);
    }

    public SenderPacket errorEstimate(int errorEstimate) {
        TestPacketLayouts.putUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET, errorEstimate);
        return this;
    }
}
