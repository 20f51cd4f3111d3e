package io.github.twping.datafile;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Encoder/decoder of the 50-byte two-way data record (docs/STATISTICS.md, data file): {@code sent} then {@code reflected}. */
final class RecordCodec {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int HALF = 25;

    private RecordCodec() {
    }

    static void encode(TwoWayRecord r, MemorySegment dst, long at) {
        encodeHalf(dst, at, r.sentSeq, r.sentSendErr, r.sentRecvErr, r.sentSendNtp, r.sentRecvNtp, r.sentTtl);
        encodeHalf(dst, at + HALF, r.reflSeq, r.reflSendErr, r.reflRecvErr, r.reflSendNtp, r.reflRecvNtp, r.reflTtl);
    }

    private static void encodeHalf(MemorySegment dst, long at, long seq, int sendErr, int recvErr, long sendNtp,
                                   long recvNtp, int ttl) {
        dst.set(INT_BE, at, (int) seq);
        dst.set(SHORT_BE, at + 4, (short) sendErr);
        dst.set(SHORT_BE, at + 6, (short) recvErr);
        dst.set(LONG_BE, at + 8, sendNtp);
        dst.set(LONG_BE, at + 16, recvNtp);
        dst.set(ValueLayout.JAVA_BYTE, at + 24, (byte) ttl);
    }

    static void decode(MemorySegment src, long at, TwoWayRecord r) {
        r.sentSeq = Integer.toUnsignedLong(src.get(INT_BE, at));
        r.sentSendErr = Short.toUnsignedInt(src.get(SHORT_BE, at + 4));
        r.sentRecvErr = Short.toUnsignedInt(src.get(SHORT_BE, at + 6));
        r.sentSendNtp = src.get(LONG_BE, at + 8);
        r.sentRecvNtp = src.get(LONG_BE, at + 16);
        r.sentTtl = Byte.toUnsignedInt(src.get(ValueLayout.JAVA_BYTE, at + 24));
        long b = at + HALF;
        r.reflSeq = Integer.toUnsignedLong(src.get(INT_BE, b));
        r.reflSendErr = Short.toUnsignedInt(src.get(SHORT_BE, b + 4));
        r.reflRecvErr = Short.toUnsignedInt(src.get(SHORT_BE, b + 6));
        r.reflSendNtp = src.get(LONG_BE, b + 8);
        r.reflRecvNtp = src.get(LONG_BE, b + 16);
        r.reflTtl = Byte.toUnsignedInt(src.get(ValueLayout.JAVA_BYTE, b + 24));
    }
}
