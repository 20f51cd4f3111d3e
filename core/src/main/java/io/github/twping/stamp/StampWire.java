package io.github.twping.stamp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian unaligned field access for the STAMP packets (network byte order). */
final class StampWire {
    static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private StampWire() {
    }

    static int uint8(MemorySegment s, long offset) {
        return s.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
    }

    static void uint8(MemorySegment s, long offset, int value) {
        s.set(ValueLayout.JAVA_BYTE, offset, (byte) value);
    }

    static int uint16(MemorySegment s, long offset) {
        return s.get(SHORT_BE, offset) & 0xFFFF;
    }

    static void uint16(MemorySegment s, long offset, int value) {
        s.set(SHORT_BE, offset, (short) value);
    }

    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    static long uint32(MemorySegment s, long offset) {
        return s.get(INT_BE, offset) & 0xFFFF_FFFFL;
    }

    static void int32(MemorySegment s, long offset, int value) {
        s.set(INT_BE, offset, value);
    }

    static long int64(MemorySegment s, long offset) {
        return s.get(LONG_BE, offset);
    }

    static void int64(MemorySegment s, long offset, long value) {
        s.set(LONG_BE, offset, value);
    }
}
