package io.github.twping.crypto;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The TWAMP-Test "cipher" of modes Open and Mixed: plain layouts, only length checks (RFC 5357 §4.1.2). */
public final class UnauthenticatedTestPacketCipher implements TestPacketCipher {
    /** Stateless, shared. */
    public static final UnauthenticatedTestPacketCipher INSTANCE = new UnauthenticatedTestPacketCipher();

    private static final int SENDER_LENGTH = 14;
    private static final int REFLECTOR_LENGTH = 41;
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private UnauthenticatedTestPacketCipher() {
    }

    @Override
    public int senderLength() {
        return SENDER_LENGTH;
    }

    @Override
    public int reflectorLength() {
        return REFLECTOR_LENGTH;
    }

    @Override
    public void prepareSender(MemorySegment packet, long sequenceNumber) {
        packet.set(INT_BE, 0, (int) sequenceNumber);
    }

    @Override
    public void finishSender(MemorySegment packet, long timestampNtp, int errorEstimate) {
        packet.set(LONG_BE, 4, timestampNtp);
        packet.set(SHORT_BE, 12, (short) errorEstimate);
    }

    @Override
    public boolean openSender(MemorySegment packet, int length) {
        return length >= SENDER_LENGTH && packet.byteSize() >= SENDER_LENGTH;
    }

    @Override
    public void sealReflector(MemorySegment packet) {
        // nothing to protect
    }

    @Override
    public boolean openReflector(MemorySegment packet, int length) {
        return length >= REFLECTOR_LENGTH && packet.byteSize() >= REFLECTOR_LENGTH;
    }
}
