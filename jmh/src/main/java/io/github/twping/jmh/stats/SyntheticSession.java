package io.github.twping.jmh.stats;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** Builds a synthetic session data file: fixed 1 ms schedule, ~0.1-0.5 ms delays, 1 % loss. */
final class SyntheticSession {
    static final long START_NTP = 3_973_000_000L << 32;
    static final long ONE_MS_NTP = (1L << 32) / 1000;

    private SyntheticSession() {
    }

    static SessionHeader header(long packets) {
        byte[] sid = new byte[16];
        for (int i = 0; i < 16; i++) {
            sid[i] = (byte) (i + 1);
        }
        return new SessionHeader(sid, 4, new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 18000,
            packets, 27, START_NTP, 2L << 32, 0, new boolean[] {true}, new long[] {ONE_MS_NTP},
            SessionHeader.FINISHED_NORMAL);
    }

    /** Fills {@code r} with record {@code seq} (lost when {@code lost}). */
    static TwoWayRecord record(TwoWayRecord r, long seq, boolean lost, SplittableRandom rnd) {
        long send = START_NTP + (seq + 1) * ONE_MS_NTP;
        if (lost) {
            return r.setLost(seq, send, 0x0001);
        }
        long fwd = ONE_MS_NTP / 10 + rnd.nextLong(ONE_MS_NTP / 2);
        long proc = ONE_MS_NTP / 100 + rnd.nextLong(ONE_MS_NTP / 20);
        long bck = ONE_MS_NTP / 10 + rnd.nextLong(ONE_MS_NTP / 2);
        r.sentSeq = seq;
        r.sentSendNtp = send;
        r.sentSendErr = 0x0001;
        r.sentRecvNtp = send + fwd;
        r.sentRecvErr = 0x0001;
        r.sentTtl = 255;
        r.reflSeq = seq;
        r.reflSendNtp = send + fwd + proc;
        r.reflSendErr = 0x0001;
        r.reflRecvNtp = send + fwd + proc + bck;
        r.reflRecvErr = 0x0001;
        r.reflTtl = 255;
        return r;
    }

    /** Writes a data file of {@code packets} records to a temporary file and opens it. */
    static SessionDataReader create(long packets) throws IOException {
        Path file = Files.createTempFile("twping-bench", ".owp");
        file.toFile().deleteOnExit();
        SplittableRandom rnd = new SplittableRandom(42);
        TwoWayRecord r = new TwoWayRecord();
        try (SessionDataWriter w = SessionDataWriter.create(file, header(packets))) {
            for (long seq = 0; seq < packets; seq++) {
                w.append(record(r, seq, rnd.nextInt(100) == 0, rnd));
            }
            w.finish(true);
        }
        return SessionDataReader.open(file);
    }
}
