package io.github.twping.datafile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.schedule.SendSchedule;
import org.junit.jupiter.api.Test;

/** The schedule's sum walked in steps ({@link ScheduleEnd}) and the skip to the end it answers ({@link ScheduleDeltas}). */
class ScheduleEndTest {
    /** Σ Δ_i, i &lt; n, from a generator of its own. */
    private static long sum(SessionHeader h, long n) {
        SendSchedule s = new SendSchedule(h.sid(), h.slots(), h.packetCount());
        long sum = 0;
        for (long i = 0; i < n; i++) {
            sum += s.nextDeltaNtp();
        }
        return sum;
    }

    private static SessionHeader exponential() throws Exception {
        try (SessionDataReader r = SessionDataReader.open(TestData.vector("datafile-exp.owp"))) {
            return r.header();
        }
    }

    @Test
    void shouldSumTheWholeScheduleWhateverTheSteps() throws Exception {
        SessionHeader h = exponential();
        long n = h.packetCount();
        ScheduleEnd stepped = ScheduleEnd.of(h);
        assertFalse(stepped.isDone());
        assertFalse(stepped.advance(7));
        assertEquals(7, stepped.taken());
        assertEquals(sum(h, 7), stepped.totalNtp());
        while (!stepped.advance(13)) {
            assertTrue(stepped.taken() < n);
        }
        assertEquals(n, stepped.taken());
        assertEquals(sum(h, n), stepped.totalNtp());
        assertTrue(stepped.advance(5), "a finished walk stays finished");
        assertEquals(sum(h, n), stepped.totalNtp());

        ScheduleEnd once = ScheduleEnd.of(h);
        once.advance(3);
        assertEquals(sum(h, n), once.finish().totalNtp());
        assertTrue(once.isDone());
    }

    @Test
    void shouldHaveNothingToSumForAHeaderWithoutSlots() {
        SessionHeader h = TestData.header(5);
        SessionHeader noSlots = new SessionHeader(h.sid(), 4, new byte[] {127, 0, 0, 1}, 9000,
                new byte[] {127, 0, 0, 1}, 18000, 5, 27, TestData.START, TestData.SECOND, 0, new boolean[0],
                new long[0], SessionHeader.FINISHED_NORMAL);
        assertNull(ScheduleEnd.of(noSlots));
    }

    @Test
    void shouldAnswerASkipToTheEndFromTheFinishedSumWithoutTheGenerator() throws Exception {
        SessionHeader h = exponential();
        long n = h.packetCount();
        ScheduleDeltas walked = ScheduleDeltas.of(h);
        ScheduleDeltas known = ScheduleDeltas.of(h, ScheduleEnd.of(h).finish());
        walked.reset();
        known.reset();
        long head = 0;
        for (int i = 0; i < 9; i++) {
            long d = known.nextDeltaNtp();
            assertEquals(walked.nextDeltaNtp(), d);
            head += d;
        }
        assertEquals(sum(h, n) - head, known.skipDeltasNtp(n - 9));
        assertEquals(sum(h, n) - head, walked.skipDeltasNtp(n - 9));
    }

    @Test
    void shouldWalkWhenTheSumIsUnfinishedOrTheSkipStopsShortOfTheEnd() throws Exception {
        SessionHeader h = exponential();
        long n = h.packetCount();
        ScheduleEnd unfinished = ScheduleEnd.of(h);
        unfinished.advance(n / 2);
        ScheduleDeltas ignored = ScheduleDeltas.of(h, unfinished);
        ignored.reset();
        assertEquals(sum(h, n), ignored.skipDeltasNtp(n), "an unfinished sum is not used");

        // a wrong total would show: a skip short of the end must come from the generator
        ScheduleDeltas known = ScheduleDeltas.of(h, ScheduleEnd.of(h).finish());
        known.reset();
        assertEquals(sum(h, n - 1), known.skipDeltasNtp(n - 1));
    }
}
