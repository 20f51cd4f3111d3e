package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Big-endian unaligned value layouts and small field helpers shared by every flyweight of this package (the
 * TWAMP-Control messages and the TWAMP-Test packets): network byte order, no alignment, no allocation.
 */
final class Wire {
    static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Wire() {
    }

    static int uint8(MemorySegment segment, long offset) {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset));
    }

    static void uint8(MemorySegment segment, long offset, int value) {
        segment.set(ValueLayout.JAVA_BYTE, offset, (byte) value);
    }

    static int uint16(MemorySegment segment, long offset) {
        return Short.toUnsignedInt(segment.get(SHORT_BE, offset));
    }

    static void uint16(MemorySegment segment, long offset, int value) {
        segment.set(SHORT_BE, offset, (short) value);
    }

    static long uint32(MemorySegment segment, long offset) {
        return Integer.toUnsignedLong(segment.get(INT_BE, offset));
    }

    static void uint32(MemorySegment segment, long offset, long value) {
        segment.set(INT_BE, offset, (int) value);
    }

    static void copyOut(MemorySegment segment, long offset, byte[] dst, int length) {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, dst, 0, length);
    }

    static void copyIn(byte[] src, MemorySegment segment, long offset, int length) {
        MemorySegment.copy(src, 0, segment, ValueLayout.JAVA_BYTE, offset, length);
    }

    static boolean isZero(MemorySegment segment, long offset, int length) {
        for (int i = 0; i < length; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Zeroes a short range without creating a slice (no allocation). */
    static void zero(MemorySegment segment, long offset, int length) {
        for (int i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) 0);
        }
    }
}
