package io.github.twping.stats.owamp;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.github.twping.datafile.DeltaSource;
import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.ScheduleEnd;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TestData;
import io.github.twping.datafile.TwoWayRecord;
import java.util.Arrays;

class TwoWayStatisticsTest {
    private final List<String> diagnostics = new ArrayList<>();

    private SummaryResult summarize(byte[] file, float bw, long first, long last, long limit) throws Exception {
        try (SessionDataReader r = SessionDataReader.of(file)) {
            TwoWayStatistics s = new TwoWayStatistics(r.header(), ScheduleDeltas.of(r.header()));
            SummaryResult out = new SummaryResult(bw);
            assertTrue(s.summarize(r, first, last, 0, limit, null, out, diagnostics), diagnostics::toString);
            return out;
        }
    }

    @Test
    void shouldGiveSameScheduleTimesWhenContinuingOrReplayingTheGenerator() throws Exception {
        try (SessionDataReader r = SessionDataReader.open(TestData.vector("datafile-exp.owp"))) {
            TwoWayStatistics shared = new TwoWayStatistics(r.header(), ScheduleDeltas.of(r.header()));
            SummaryResult a = new SummaryResult(0.0001f);
            SummaryResult b = new SummaryResult(0.0001f);
            long begin = 0;
            for (long first = 0; first < 100; first += 7) {
                long last = Math.min(100, first + 7);
                assertTrue(shared.summarize(r, first, last, begin, 0, null, a, diagnostics));
                TwoWayStatistics fresh = new TwoWayStatistics(r.header(), ScheduleDeltas.of(r.header()));
                assertTrue(fresh.summarize(r, first, last, begin, 0, null, b, diagnostics));
                assertEquals(b.startTimeNtp(), a.startTimeNtp());
                assertEquals(b.endTimeNtp(), a.endTimeNtp());
                assertEquals(b.sent(), a.sent());
                begin = a.nextBeginRecord();
            }
            // going back to the start replays the generator from Δ_0
            assertTrue(shared.summarize(r, 0, 100, 0, 0, null, a, diagnostics));
            TwoWayStatistics fresh = new TwoWayStatistics(r.header(), ScheduleDeltas.of(r.header()));
            assertTrue(fresh.summarize(r, 0, 100, 0, 0, null, b, diagnostics));
            assertEquals(b.startTimeNtp(), a.startTimeNtp());
            assertEquals(b.endTimeNtp(), a.endTimeNtp());
        }
    }

    /** A DeltaSource that counts the deltas it hands out one by one. */
    private static final class CountingDeltas implements DeltaSource {
        private final DeltaSource inner;
        long taken;

        CountingDeltas(DeltaSource inner) {
            this.inner = inner;
        }

        @Override
        public void reset() {
            inner.reset();
        }

        @Override
        public long nextDeltaNtp() {
            taken++;
            return inner.nextDeltaNtp();
        }

        @Override
        public long skipDeltasNtp(long count) {
            return inner.skipDeltasNtp(count);
        }
    }

    /**
     * A session stopped early (Ctrl-C): 4 records of 100,000 scheduled packets. Its summary ends at schedtime(N-1)
     * as C's does (docs/STATISTICS.md); with the schedule's sum known ({@link ScheduleEnd}) the final flush jumps
     * there instead of taking the 99,996 other deltas one by one, and everything else is as with the walk.
     */
    @Test
    void shouldEndAStoppedSessionAtTheLastScheduledPacketWithoutWalkingTheRestWhenTheSumIsKnown() throws Exception {
        SessionHeader t = TestData.header(100_000);
        SessionHeader h = new SessionHeader(t.sid(), 4, new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1},
            18000, 100_000, 27, TestData.START, 2 * TestData.SECOND, 0, new boolean[] {false},
            new long[] {TestData.TEN_MS}, SessionHeader.FINISHED_INCOMPLETE);
        long ms = TestData.SECOND / 1000;
        byte[] file = TestData.file(h,
            TestData.received(new TwoWayRecord(), 0, ms, ms / 10, ms, 64),
            TestData.received(new TwoWayRecord(), 1, ms, ms / 10, ms, 64),
            new TwoWayRecord().setLost(2, TestData.START + 3 * TestData.TEN_MS, 0x0001),
            TestData.received(new TwoWayRecord(), 3, 2 * ms, ms / 10, ms, 64));
        SendSchedule schedule = new SendSchedule(h.sid(), h.slots(), h.packetCount());
        long end = TestData.START;
        for (int i = 0; i < 100_000; i++) {
            end += schedule.nextDeltaNtp();
        }
        try (SessionDataReader r = SessionDataReader.of(file)) {
            SummaryResult walked = new SummaryResult(0.0001f);
            CountingDeltas walking = new CountingDeltas(ScheduleDeltas.of(h));
            assertTrue(new TwoWayStatistics(h, walking).summarize(r, 0, 100_000, 0, 0, null, walked, diagnostics),
                diagnostics::toString);
            SummaryResult jumped = new SummaryResult(0.0001f);
            CountingDeltas jumping = new CountingDeltas(ScheduleDeltas.of(h, ScheduleEnd.of(h).finish()));
            assertTrue(new TwoWayStatistics(h, jumping).summarize(r, 0, 100_000, 0, 0, null, jumped, diagnostics),
                diagnostics::toString);

            assertEquals(end, walked.endTimeNtp());
            assertEquals(end, jumped.endTimeNtp());
            assertEquals(walked.startTimeNtp(), jumped.startTimeNtp());
            assertEquals(4, jumped.sent());
            assertEquals(1, jumped.lost());
            assertEquals(walked.sent(), jumped.sent());
            assertEquals(walked.lost(), jumped.lost());
            assertEquals(walked.median(SummaryResult.RT), jumped.median(SummaryResult.RT));
            assertTrue(jumping.taken <= 5, "deltas taken one by one with the sum known: " + jumping.taken);
        }
    }

    @Test
    void shouldCountAllLostSessionAndClearSync() throws Exception {
        SessionHeader h = TestData.header(4);
        TwoWayRecord[] recs = new TwoWayRecord[4];
        for (int i = 0; i < 4; i++) {
            recs[i] = new TwoWayRecord().setLost(i, TestData.START + (i + 1) * TestData.TEN_MS, 0x0001);
        }
        SummaryResult r = summarize(TestData.file(h, recs), 0.0001f, 0, 4, 0);
        assertEquals(4, r.sent());
        assertEquals(4, r.lost());
        assertFalse(r.sync());
        assertTrue(Double.isNaN(r.min(SummaryResult.RT)));
        assertTrue(Double.isNaN(r.median(SummaryResult.RT)));
        assertEquals(0, r.histogram().bucketCount());
        assertEquals(TestData.START + 4 * TestData.TEN_MS, r.endTimeNtp());
        assertEquals(TestData.START + TestData.TEN_MS, r.startTimeNtp());
        assertEquals(1.0, r.lossFraction());
    }

    @Test
    void shouldKeepSyncWithoutLossAndComputeQuantisedDelays() throws Exception {
        SessionHeader h = TestData.header(2);
        long fwd = TestData.SECOND / 1000;   // 1 ms
        long proc = TestData.SECOND / 10000; // 0.1 ms
        SummaryResult r = summarize(TestData.file(h,
            TestData.received(new TwoWayRecord(), 0, fwd, proc, fwd, 250),
            TestData.received(new TwoWayRecord(), 1, 2 * fwd, proc, fwd, 250)), 0.0001f, 0, 2, 0);
        assertTrue(r.sync());
        assertEquals(2, r.sent());
        assertEquals(0, r.lost());
        double d = Num64.toDouble(TestData.START + 2 * TestData.TEN_MS + 2 * fwd) - Num64.toDouble(TestData.START + 2 * TestData.TEN_MS);
        assertEquals(d, r.max(SummaryResult.FWD));
        assertEquals(4 * 0x1.0p-32, r.maxError(SummaryResult.RT));
        assertEquals(1, r.ttlCountFwd(250) > 0 ? 1 : 0);
        assertEquals(2, r.ttlCountBck(250));
    }

    @Test
    void shouldCountForwardAndReflectDuplicatesWithoutHistogram() throws Exception {
        SessionHeader h = TestData.header(2);
        long ms = TestData.SECOND / 1000;
        TwoWayRecord a = TestData.received(new TwoWayRecord(), 0, ms, ms, ms, 255);
        TwoWayRecord dupBck = new TwoWayRecord().copyFrom(a);
        TwoWayRecord dupFwd = new TwoWayRecord().copyFrom(a);
        dupFwd.reflSeq = 1;
        TwoWayRecord b = TestData.received(new TwoWayRecord(), 1, ms, ms, ms, 255);
        b.reflSeq = 2;
        SummaryResult r = summarize(TestData.file(h, a, dupBck, dupFwd, b), 0.0001f, 0, 2, 0);
        assertEquals(2, r.sent());
        assertEquals(1, r.dupsBck());
        assertEquals(1, r.dupsFwd());
        assertEquals(2, r.ttlCountFwd(255));
    }

    /**
     * A reflect seq no reflector of this session can have sent (at least N + records: it numbers the packets it
     * received) is refused with C's out-of-range diagnostics instead of creating a node for every seq up to it;
     * a fuzzed file of such records grew the BCK list to gigabytes and took 11 s (issue 26, item 17).
     */
    @Test
    void shouldRefuseAReflectSeqBeyondWhatTheReflectorCanHaveNumbered() throws Exception {
        SessionHeader h = TestData.header(2);
        TwoWayRecord a = TestData.received(new TwoWayRecord(), 0, 1000, 100, 1000, 255);
        TwoWayRecord far = TestData.received(new TwoWayRecord(), 1, 1000, 100, 1000, 255);
        far.reflSeq = 4;  // N 2 + 2 records
        try (SessionDataReader r = SessionDataReader.of(TestData.file(h, a, far))) {
            TwoWayStatistics s = new TwoWayStatistics(r.header(), ScheduleDeltas.of(r.header()));
            assertFalse(s.summarize(r, 0, 2, 0, 0, null, new SummaryResult(0.0001f), diagnostics));
        }
        assertEquals("Invalid type 1 seq number request (out of range)", diagnostics.get(0));
        diagnostics.clear();
        far.reflSeq = 3;  // the most a reflector can have numbered: a duplicate reached it and us
        summarize(TestData.file(h, a, far), 0.0001f, 0, 2, 0);
    }

    @Test
    void shouldApplyRecordLimitToStatistics() throws Exception {
        SessionHeader h = TestData.header(5);
        TwoWayRecord[] recs = new TwoWayRecord[5];
        for (int i = 0; i < 5; i++) {
            recs[i] = TestData.received(new TwoWayRecord(), i, 1000, 100, 1000, 255);
        }
        SummaryResult r = summarize(TestData.file(h, recs), 0.0001f, 0, 5, 2);
        assertEquals(2, r.sent());
        assertEquals(2, r.recordsExamined());
    }

    @Test
    void shouldFailOnMultiplierZeroRecordWithCMessages() throws Exception {
        SessionHeader h = TestData.header(2);
        TwoWayRecord bad = TestData.received(new TwoWayRecord(), 0, 1000, 100, 1000, 255);
        bad.reflSendErr = 0x8000;
        try (SessionDataReader r = SessionDataReader.of(TestData.file(h, bad))) {
            TwoWayStatistics s = new TwoWayStatistics(r.header(), ScheduleDeltas.of(r.header()));
            assertFalse(s.summarize(r, 0, 2, 0, 0, null, new SummaryResult(0.0001f), diagnostics));
        }
        assertEquals(List.of("OWPParseRecords: Invalid Data Record",
            "OWPStatsParse: iteration of twoway data records failed", "OWPStatsParse: failed"), diagnostics);
    }

    @Test
    void shouldFailOnLostRecordAfterReceivedOne() throws Exception {
        SessionHeader h = TestData.header(2);
        TwoWayRecord ok = TestData.received(new TwoWayRecord(), 0, 1000, 100, 1000, 255);
        TwoWayRecord lost = new TwoWayRecord().setLost(0, TestData.START + TestData.TEN_MS, 1);
        try (SessionDataReader r = SessionDataReader.of(TestData.file(h, ok, lost))) {
            TwoWayStatistics s = new TwoWayStatistics(r.header(), ScheduleDeltas.of(r.header()));
            assertFalse(s.summarize(r, 0, 2, 0, 0, null, new SummaryResult(0.0001f), diagnostics));
        }
        assertEquals("IterateSummarizeTWSession: Unexpected lost packet record", diagnostics.get(0));
    }

    @Test
    void shouldPutEverythingIntoOneBucketWithHugeWidthAndSaturateWithTinyWidth() throws Exception {
        SessionHeader h = TestData.header(3);
        TwoWayRecord[] recs = new TwoWayRecord[3];
        for (int i = 0; i < 3; i++) {
            recs[i] = TestData.received(new TwoWayRecord(), i, 100_000L * (i + 1), 100, 100_000, 255);
        }
        byte[] file = TestData.file(h, recs);
        SummaryResult huge = summarize(file, 1e30f, 0, 3, 0);
        assertEquals(1, huge.histogram().bucketCount());
        assertEquals(1, huge.histogram().bucketIndexAt(0));
        assertEquals(1e30f, huge.median(SummaryResult.RT), 1e24);
        SummaryResult tiny = summarize(file, Float.MIN_VALUE, 0, 3, 0);
        assertEquals(1, tiny.histogram().bucketCount());
        assertEquals(Integer.MIN_VALUE, tiny.histogram().bucketIndexAt(0));
    }

    @Test
    void shouldUseCeilForPositiveAndFloorForNegativeQuotients() {
        DelayHistogram h = new DelayHistogram(0.0001f);
        assertEquals(1, h.bucketOf(0.00001));
        assertEquals(0, h.bucketOf(0.0));
        assertEquals(-256, h.bucketOf(-0.02555));
        assertEquals(256, h.bucketOf(0.02555));
    }

    @Test
    void shouldIterateBucketsInCHashOrder() {
        DelayHistogram h = new DelayHistogram(1f);
        // creation order: 1, 256, -256, 300, 2
        for (double d : new double[] {0.5, 255.5, -255.5, 299.5, 1.5}) {
            h.add(DelayHistogram.RT, d);
        }
        int[] order = new int[h.bucketCount()];
        h.hashOrder(order);
        int[] indices = new int[order.length];
        for (int k = 0; k < order.length; k++) {
            indices[k] = h.bucketIndexAt(order[k]);
        }
        // slots: 256 -> 1, 1 -> 1 (older), 2 -> 2, 300 -> 45, -256 -> 765
        assertEquals(List.of(256, 1, 2, 300, -256), Arrays.stream(indices).boxed().toList());
    }

    @Test
    void shouldHandleThousandsOfBucketsAndWarnPerAllocationBlock() {
        DelayHistogram h = new DelayHistogram(1f);
        for (int i = 0; i < 5000; i++) {
            h.add(DelayHistogram.RT, i + 0.5);
        }
        assertEquals(5000, h.bucketCount());
        assertEquals(2, h.allocationWarnings());
        assertEquals(2500.0, h.percentile(DelayHistogram.RT, 0.5, 5000));
    }
}
