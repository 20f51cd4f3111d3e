package io.github.twping.protocol;

import static io.github.twping.protocol.TestPacketLayouts.LONG_BE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Flyweight for an authenticated/encrypted TWAMP-Test Session-Reflector packet (RFC 5357 section 4.2.1,
 * modes Authenticated and Encrypted; RFC 5357 §4.2.1). Accessors see plaintext only before sealing or after a
 * successful open by the {@code TestPacketCipher}.
 *
 * <pre>
 *  0: Sequence Number (4)  4: MBZ (12)  16: Timestamp (8)  24: Error Estimate (2)  26: MBZ (6)
 * 32: Receive Timestamp (8)  40: MBZ (8)  48: Sender Sequence Number (4)  52: MBZ (12)
 * 64: Sender Timestamp (8)  72: Sender Error Estimate (2)  74: MBZ (6)  80: Sender TTL (1)  81: MBZ (15)
 * 96: HMAC (16)  112: Packet Padding
 * </pre>
 */
public final class AuthReflectorPacket {
    public static final int SEQUENCE_NUMBER_OFFSET = 0;
    public static final int TIMESTAMP_OFFSET = 16;
    public static final int ERROR_ESTIMATE_OFFSET = 24;
    public static final int RECEIVE_TIMESTAMP_OFFSET = 32;
    public static final int SENDER_SEQUENCE_NUMBER_OFFSET = 48;
    public static final int SENDER_TIMESTAMP_OFFSET = 64;
    public static final int SENDER_ERROR_ESTIMATE_OFFSET = 72;
    public static final int SENDER_TTL_OFFSET = 80;
    public static final int HMAC_OFFSET = 96;
    public static final int HMAC_LENGTH = 16;
    public static final int PADDING_OFFSET = 112;
    /** Minimum length (no padding). */
    public static final int LENGTH = 112;

    private static final int[] MBZ_OFFSETS = {4, 26, 40, 52, 74, 81};
    private static final int[] MBZ_LENGTHS = {12, 6, 8, 12, 6, 15};

    private MemorySegment segment;
    private long base;

    /** Wraps a packet starting at offset 0 of {@code segment}. */
    public AuthReflectorPacket wrap(MemorySegment segment) {
        return wrap(segment, 0);
    }

    /** Wraps a packet starting at {@code offset} of {@code segment}. */
    public AuthReflectorPacket wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.base = offset;
        return this;
    }

    /** Returns the wrapped segment. */
    public MemorySegment segment() {
        return segment;
    }

    /** Returns the reply length twampd uses: {@code max(requestLength, 112)} (RFC 5357 §4.2.1). */
    public static int replyLength(int requestLength) {
        return Math.max(requestLength, LENGTH);
    }

    public long sequenceNumber() {
        return TestPacketLayouts.getUnsignedInt(segment, base + SEQUENCE_NUMBER_OFFSET);
    }

    public AuthReflectorPacket sequenceNumber(long sequenceNumber) {
        TestPacketLayouts.putUnsignedInt(segment, base + SEQUENCE_NUMBER_OFFSET, sequenceNumber);
        return this;
    }

    public long timestampNtp() {
        return segment.get(LONG_BE, base + TIMESTAMP_OFFSET);
    }

    public AuthReflectorPacket timestampNtp(long timestampNtp) {
        segment.set(LONG_BE, base + TIMESTAMP_OFFSET, timestampNtp);
        return this;
    }

    public int errorEstimate() {
        return TestPacketLayouts.getUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET);
    }

    public AuthReflectorPacket errorEstimate(int errorEstimate) {
        TestPacketLayouts.putUnsignedShort(segment, base + ERROR_ESTIMATE_OFFSET, errorEstimate);
        return this;
    }

    public long receiveTimestampNtp() {
        return segment.get(LONG_BE, base + RECEIVE_TIMESTAMP_OFFSET);
    }

    public AuthReflectorPacket receiveTimestampNtp(long receiveTimestampNtp) {
        segment.set(LONG_BE, base + RECEIVE_TIMESTAMP_OFFSET, receiveTimestampNtp);
        return this;
    }

    public long senderSequenceNumber() {
        return TestPacketLayouts.getUnsignedInt(segment, base + SENDER_SEQUENCE_NUMBER_OFFSET);
    }

    public AuthReflectorPacket senderSequenceNumber(long senderSequenceNumber) {
        TestPacketLayouts.putUnsignedInt(segment, base + SENDER_SEQUENCE_NUMBER_OFFSET, senderSequenceNumber);
        return this;
    }

    public long senderTimestampNtp() {
        return segment.get(LONG_BE, base + SENDER_TIMESTAMP_OFFSET);
    }

    public AuthReflectorPacket senderTimestampNtp(long senderTimestampNtp) {
        segment.set(LONG_BE, base + SENDER_TIMESTAMP_OFFSET, senderTimestampNtp);
        return this;
    }

    public int senderErrorEstimate() {
        return TestPacketLayouts.getUnsignedShort(segment, base + SENDER_ERROR_ESTIMATE_OFFSET);
    }

    public AuthReflectorPacket senderErrorEstimate(int senderErrorEstimate) {
        TestPacketLayouts.putUnsignedShort(segment, base + SENDER_ERROR_ESTIMATE_OFFSET, senderErrorEstimate);
        return this;
    }

    /** Returns the Sender TTL, 0..255. */
    public int senderTtl() {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, base + SENDER_TTL_OFFSET));
    }

    public AuthReflectorPacket senderTtl(int senderTtl) {
        segment.set(ValueLayout.JAVA_BYTE, base + SENDER_TTL_OFFSET, (byte) senderTtl);
        return this;
    }

    /** Zeroes every MBZ range. */
    public AuthReflectorPacket clearMbz() {
        for (int i = 0; i < MBZ_OFFSETS.length; i++) {
            TestPacketLayouts.zero(segment, base + MBZ_OFFSETS[i], MBZ_LENGTHS[i]);
        }
        return this;
    }
}
