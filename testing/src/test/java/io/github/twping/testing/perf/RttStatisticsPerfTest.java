package io.github.twping.testing.perf;

import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;

import java.nio.channels.FileChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The runner's RTT arithmetic: NTP differences to ns, the record formula, the record scan. */
class RttStatisticsPerfTest {
    private static final long ONE_SECOND_NTP = 1L << 32;

    @Test
    void shouldConvertWholeAndHalfSecondsExactly() {
        assertEquals(1_000_000_000L, RttStatistics.ntpDeltaToNs(ONE_SECOND_NTP));
        assertEquals(500_000_000L, RttStatistics.ntpDeltaToNs(ONE_SECOND_NTP / 2));
        assertEquals(-1_000_000_000L, RttStatistics.ntpDeltaToNs(-ONE_SECOND_NTP));
        assertEquals(0, RttStatistics.ntpDeltaToNs(0));
    }

    @Test
    void shouldRoundTowardNegativeInfinity() {
        // one NTP unit is 0.2328 ns
        assertEquals(0, RttStatistics.ntpDeltaToNs(1));
        assertEquals(-1, RttStatistics.ntpDeltaToNs(-1));
        // 5 ns = 21.47 units: 22 units are 5.12 ns
        assertEquals(5, RttStatistics.ntpDeltaToNs(22));
    }

    @Test
    void shouldAgreeWithNtpTimeForEpochValues() {
        long epochNs = 1_764_518_400_123_456_789L;
        long ntp = NtpTime.fromEpochNanos(epochNs);
        long later = NtpTime.fromEpochNanos(epochNs + 12_345_678);
        // both stamps are floored to an NTP unit, so the difference is within one ns of the truth
        long delta = RttStatistics.ntpDeltaToNs(later - ntp);
        assertEquals(12_345_678, delta, 1);
    }

    @Test
    void shouldSubtractReflectorProcessingTime() {
        TwoWayRecord r = record(0, 100_000, 150_000, 170_000, 260_000);
        // (260 - 100) - (170 - 150) = 140 µs
        assertEquals(140_000, RttStatistics.roundTripNs(r), 1);
    }

    @Test
    void shouldKeepExactExtremesAndCountNegatives() {
        RttStatistics s = new RttStatistics();
        s.record(12_345);
        s.record(-7);
        s.record(99_999_999);
        assertEquals(3, s.count());
        assertEquals(-7, s.minNs());
        assertEquals(99_999_999, s.maxNs());
        assertEquals(1, s.negativeCount());
        assertEquals(0, s.histogramNs().getMinValue());
    }

    @Test
    void shouldReportZeroExtremesWhenEmpty() {
        RttStatistics s = new RttStatistics();
        assertEquals(0, s.minNs());
        assertEquals(0, s.maxNs());
        assertEquals(0, s.summary().count());
    }

    @Test
    void shouldCountLostRecordsAndRecordTheOthers() throws Exception {
        SessionHeader header = new SessionHeader(new byte[16], 4, new byte[] {127, 0, 0, 1}, 9000,
                new byte[] {127, 0, 0, 1}, 9001, 3, 27, NtpTime.fromEpochNanos(1_000_000_000_000_000_000L),
                2 * ONE_SECOND_NTP, 0, new boolean[] {true}, new long[] {ONE_SECOND_NTP / 1000},
                SessionHeader.FINISHED_INCOMPLETE);
        try (FileChannel ch = SessionDataWriter.openAnonymousTempFile(null)) {
            SessionDataWriter w = SessionDataWriter.onChannel(ch, header, 4);
            w.append(record(0, 1_000_000, 1_010_000, 1_011_000, 1_030_000));
            w.append(new TwoWayRecord().setLost(1, NtpTime.fromEpochNanos(1_001_000_000_000_000_000L), 1));
            w.append(record(2, 3_000_000, 3_002_000, 3_003_000, 3_010_000));
            w.finish(true);
            RttStatistics s = new RttStatistics();
            try (SessionDataReader reader = SessionDataReader.open(ch)) {
                assertEquals(1, RttStatistics.addRecords(reader, s));
            }
            assertEquals(2, s.count());
            assertEquals(9_000, s.minNs(), 1);   // (3010 - 3000) - (3003 - 3002) µs
            assertEquals(29_000, s.maxNs(), 1);
        }
    }

    /** A received record with the four stamps given as ns after a fixed epoch instant. */
    private static TwoWayRecord record(long seq, long sendNs, long reflRecvNs, long reflSendNs, long recvNs) {
        long base = 1_000_000_000_000_000_000L;
        TwoWayRecord r = new TwoWayRecord();
        r.sentSeq = seq;
        r.reflSeq = seq;
        r.sentSendNtp = NtpTime.fromEpochNanos(base + sendNs);
        r.sentRecvNtp = NtpTime.fromEpochNanos(base + reflRecvNs);
        r.reflSendNtp = NtpTime.fromEpochNanos(base + reflSendNs);
        r.reflRecvNtp = NtpTime.fromEpochNanos(base + recvNs);
        r.sentSendErr = 1;
        r.sentRecvErr = 1;
        r.reflSendErr = 1;
        r.reflRecvErr = 1;
        r.sentTtl = 255;
        r.reflTtl = 255;
        return r;
    }
}
