package io.github.twping.datafile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.github.twping.testdata.RecordedVectors;
import java.lang.foreign.MemorySegment;

/** Vector files and synthetic sessions for the data file and statistics tests. */
public final class TestData {
    public static final long SECOND = 1L << 32;
    public static final long START = (3_973_000_000L << 32);          // an NTP time in 2025
    public static final long TEN_MS = 0x028F5C28L;                    // 0.01 s as Num64 (the -i 0.01f slot)

    private TestData() {
    }

    public static Path vector(String name) {
        return RecordedVectors.file(name);
    }

    public static byte[] vectorBytes(String name) {
        try {
            return Files.readAllBytes(vector(name));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A header with one fixed 10 ms slot and a 2 s loss timeout. */
    public static SessionHeader header(long packets) {
        byte[] sid = new byte[16];
        for (int i = 0; i < 16; i++) {
            sid[i] = (byte) (i * 17 + 1);
        }
        return new SessionHeader(sid, 4, new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 18000,
            packets, 27, START, 2 * SECOND, 0, new boolean[] {true}, new long[] {TEN_MS},
            SessionHeader.FINISHED_NORMAL);
    }

    /** Fills {@code r} as a received record for seq with the given one-way delays (Num64 units). */
    public static TwoWayRecord received(TwoWayRecord r, long seq, long fwdNtp, long procNtp, long bckNtp, int ttl) {
        long send = START + (seq + 1) * TEN_MS;
        r.sentSeq = seq;
        r.sentSendNtp = send;
        r.sentSendErr = 0x0001;
        r.sentRecvNtp = send + fwdNtp;
        r.sentRecvErr = 0x0001;
        r.sentTtl = ttl;
        r.reflSeq = seq;
        r.reflSendNtp = send + fwdNtp + procNtp;
        r.reflSendErr = 0x0001;
        r.reflRecvNtp = send + fwdNtp + procNtp + bckNtp;
        r.reflRecvErr = 0x0001;
        r.reflTtl = ttl;
        return r;
    }

    /** Encodes a whole data file in memory. */
    public static byte[] file(SessionHeader header, TwoWayRecord... records) {
        byte[] out = new byte[header.dataOffset() + records.length * TwoWayRecord.LENGTH];
        MemorySegment seg = MemorySegment.ofArray(out);
        header.encode(seg);
        for (int i = 0; i < records.length; i++) {
            RecordCodec.encode(records[i], seg, header.dataOffset() + (long) i * TwoWayRecord.LENGTH);
        }
        return out;
    }
}
