package io.github.twping.protocol;

import static io.github.twping.protocol.TestPacketLayouts.LONG_BE;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight for an authenticated/encrypted TWAMP-Test Session-Sender packet (RFC 5357 section 4.1.2,
 * modes Authenticated and Encrypted; RFC 5357 §4.1.2). Accessors see the bytes as they are: plaintext only
 * before sealing or after a successful open by the {@code TestPacketCipher}.
 *
 * <pre>
 *  0: Sequence Number (4)  4: MBZ (12)  16: Timestamp (8)  24: Error Estimate (2)  26: MBZ (6)
 * 32: HMAC (16)  48: Packet Padding
 * </pre>
 */
public final class AuthSenderPacket {
    public static final int SEQUENCE_NUMBER_OFFSET = 0;
    public static final int MBZ_1_OFFSET = 4;
    public static final int MBZ_1_LENGTH = 12;
    public static final int TIMESTAMP_OFFSET = 16;
    public static final int ERROR_ESTIMATE_OFFSET = 24;
    public static final int MBZ_2_OFFSET = 26;
    public static final int MBZ_2_LENGTH = 6;
    public static final int HMAC_OFFSET = 32;
    public static final int HMAC_LENGTH = 16;
    public static final int PADDING_OFFSET = 48;
    /** Minimum length (no padding). */
    public static final int LENGTH = 48;

    private MemorySegment segment;
    private long base;

    /** Wraps a packet starting at offset 0 of {@code segment}. */
    public AuthSenderPacket wrap(MemorySegment segment) {
        return wrap(segment, 0);
    }

    /** Wraps a packet starting at {@code offset} of {@code segment}. */
    public AuthSenderPacket wrap(MemorySegment segment, long offset) {
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

    public AuthSenderPacket sequenceNumber(long sequenceNumber) {
        TestPacketLayouts.putUnsignedInt(segment, base + SEQUENCE_NUMBER_OFFSET, sequenceNumber);
        return this;
    }

    public long timestampNtp() {
        return segment.get(LONG_BE, base + TIMESTAMP_OFFSET);
    }

    public AuthSenderPacket timestampNtp(long timestampNtp) {
        segment.set(LONG_BE, base + TIMESTAMP_OFFSET, timestampNtp);
        return this;
    }

    public int errorEstimate() {
        return TestPacketLayouts.getUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET);
    }

    public AuthSenderPacket errorEstimate(int errorEstimate) {
        TestPacketLayouts.putUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET, errorEstimate);
        return this;
    }

    /** Zeroes both MBZ ranges. */
    public AuthSenderPacket clearMbz() {
        TestPacketLayouts.zero(segment, base + MBZ_1_OFFSET, MBZ_1_LENGTH);
        TestPacketLayouts.zero(segment, base + MBZ_2_OFFSET, MBZ_2_LENGTH);
        return this;
    }
}
