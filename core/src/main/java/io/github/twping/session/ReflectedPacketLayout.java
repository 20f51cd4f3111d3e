package io.github.twping.session;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import io.github.twping.protocol.AuthReflectorPacket;
import io.github.twping.protocol.AuthSenderPacket;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;

/**
 * Field offsets (taken from the {@code protocol} flyweights) of a Session-Reflector packet in one of the two TWAMP-Test layouts (RFC 5357 section 4.2.1
 * unauthenticated, 4.2.2 authenticated/encrypted), chosen once per session so that the receiver reads the
 * fields of a reply without testing the mode per packet.
 *
 * @param senderLength            minimum Session-Sender packet length (14 or 48)
 * @param reflectorLength         minimum Session-Reflector packet length (41 or 112)
 * @param paddingOffset           offset of the padding in a sender packet
 * @param sequenceOffset          reflector sequence number
 * @param timestampOffset         reflector send timestamp
 * @param errorEstimateOffset     reflector error estimate
 * @param receiveTimestampOffset  reflector receive timestamp
 * @param senderSequenceOffset    copied sender sequence number
 * @param senderTimestampOffset   copied sender timestamp
 * @param senderErrorOffset       copied sender error estimate
 * @param senderTtlOffset         TTL of the sender packet as received by the reflector
 */
public record ReflectedPacketLayout(int senderLength, int reflectorLength, int paddingOffset, int sequenceOffset,
                                    int timestampOffset, int errorEstimateOffset, int receiveTimestampOffset,
                                    int senderSequenceOffset, int senderTimestampOffset, int senderErrorOffset,
                                    int senderTtlOffset) {

    /** Open and mixed modes. */
    public static final ReflectedPacketLayout UNAUTHENTICATED = new ReflectedPacketLayout(
            SenderPacket.LENGTH, ReflectorPacket.LENGTH, SenderPacket.PADDING_OFFSET,
            ReflectorPacket.SEQUENCE_NUMBER_OFFSET, ReflectorPacket.TIMESTAMP_OFFSET,
            ReflectorPacket.ERROR_ESTIMATE_OFFSET, ReflectorPacket.RECEIVE_TIMESTAMP_OFFSET,
            ReflectorPacket.SENDER_SEQUENCE_NUMBER_OFFSET, ReflectorPacket.SENDER_TIMESTAMP_OFFSET,
            ReflectorPacket.SENDER_ERROR_ESTIMATE_OFFSET, ReflectorPacket.SENDER_TTL_OFFSET);

    /** Authenticated and encrypted modes. */
    public static final ReflectedPacketLayout AUTHENTICATED = new ReflectedPacketLayout(
            AuthSenderPacket.LENGTH, AuthReflectorPacket.LENGTH, AuthSenderPacket.PADDING_OFFSET,
            AuthReflectorPacket.SEQUENCE_NUMBER_OFFSET, AuthReflectorPacket.TIMESTAMP_OFFSET,
            AuthReflectorPacket.ERROR_ESTIMATE_OFFSET, AuthReflectorPacket.RECEIVE_TIMESTAMP_OFFSET,
            AuthReflectorPacket.SENDER_SEQUENCE_NUMBER_OFFSET, AuthReflectorPacket.SENDER_TIMESTAMP_OFFSET,
            AuthReflectorPacket.SENDER_ERROR_ESTIMATE_OFFSET, AuthReflectorPacket.SENDER_TTL_OFFSET);

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** @return the layout used with the negotiated mode bits (1, 2, 4 or 8). */
    public static ReflectedPacketLayout forMode(int modeBits) {
        return modeBits == 2 || modeBits == 4 ? AUTHENTICATED : UNAUTHENTICATED;
    }

    public long sequence(MemorySegment packet) {
        return Integer.toUnsignedLong(packet.get(INT_BE, sequenceOffset));
    }

    public long timestampNtp(MemorySegment packet) {
        return packet.get(LONG_BE, timestampOffset);
    }

    public int errorEstimate(MemorySegment packet) {
        return Short.toUnsignedInt(packet.get(SHORT_BE, errorEstimateOffset));
    }

    public long receiveTimestampNtp(MemorySegment packet) {
        return packet.get(LONG_BE, receiveTimestampOffset);
    }

    public long senderSequence(MemorySegment packet) {
        return Integer.toUnsignedLong(packet.get(INT_BE, senderSequenceOffset));
    }

    public long senderTimestampNtp(MemorySegment packet) {
        return packet.get(LONG_BE, senderTimestampOffset);
    }

    public int senderErrorEstimate(MemorySegment packet) {
        return Short.toUnsignedInt(packet.get(SHORT_BE, senderErrorOffset));
    }

    public int senderTtl(MemorySegment packet) {
        return Byte.toUnsignedInt(packet.get(ValueLayout.JAVA_BYTE, senderTtlOffset));
    }
}
