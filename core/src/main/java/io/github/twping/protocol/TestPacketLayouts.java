package io.github.twping.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian unaligned value layouts and MBZ helpers shared by the TWAMP-Test flyweights. */
final class TestPacketLayouts {
    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private TestPacketLayouts() {
    }

    static long getUnsignedInt(MemorySegment segment, long offset) {
        return Integer.toUnsignedLong(segment.get(INT_BE, offset));
    }

    static void putUnsignedInt(MemorySegment segment, long offset, long value) {
        segment.set(INT_BE, offset, (int) value);
    }

    static int getUnsignedShort(MemorySegment segment, long offset) {
        return Short.toUnsignedInt(segment.get(SHORT_BE, offset));
    }

    static void putUnsignedShort(MemorySegment segment, long offset, int value) {
        segment.set(SHORT_BE, offset, (short) value);
    }

    /** Zeroes a short MBZ range without creating a slice (no allocation). */
    static void zero(MemorySegment segment, long offset, int length) {
        for (int i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) 0);
        }
    }
}
