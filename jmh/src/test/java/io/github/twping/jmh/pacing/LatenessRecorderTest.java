package io.github.twping.jmh.pacing;

import io.github.twping.pacing.Pacer;
import io.github.twping.pacing.ParkThenSpinPacer;
import io.github.twping.pacing.SimulatedClock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import com.sun.management.ThreadMXBean;

class LatenessRecorderTest {
    private static final long START_NS = 5_000_000_000L;
    private static final long PERIOD_NS = 100_000;

    /**
     * Paces {@code sends} through {@code pacer}, checking that the recorder asks for the absolute deadlines
     * {@code start + i * period} in order, and returns the recorder.
     */
    private static LatenessRecorder paceCheckingDeadlines(Pacer pacer, SimulatedClock clock, int sends) {
        long[] calls = new long[1];
        Pacer checking = deadlineNs -> {
            assertEquals(START_NS + (calls[0] + 1) * PERIOD_NS, deadlineNs, "deadline of send " + calls[0]);
            calls[0]++;
            return pacer.awaitDeadline(deadlineNs);
        };
        LatenessRecorder recorder = new LatenessRecorder(checking, clock, PERIOD_NS);
        recorder.paceAll(sends);
        assertEquals(sends, calls[0]);
        return recorder;
    }

    @Test
    void shouldPaceAgainstAbsoluteDeadlinesAndRecordEverySend() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 10, 0);
        LatenessRecorder recorder = paceCheckingDeadlines(ParkThenSpinPacer.spinOnly(clock), clock, 1_000);
        assertEquals(1_000, recorder.latenessNs().getTotalCount());
        assertEquals(0, recorder.latenessNs().getMaxValue());
    }

    @Test
    void shouldCatchUpInsteadOfAccumulatingLateness() {
        // Every park overshoots by 2.5 periods; with absolute deadlines the sends that follow a late one
        // go out at once, so lateness stays bounded instead of growing by 2.5 periods per send.
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 10, 250_000);
        Histogram latenessNs = paceCheckingDeadlines(ParkThenSpinPacer.parkOnly(clock), clock, 3_000).latenessNs();
        assertEquals(3_000, latenessNs.getTotalCount());
        assertEquals(250_000, latenessNs.getMaxValue(), 250_000 * 0.001);
        // Late by 2.5, 1.5 and 0.5 periods in turn: one park per three sends.
        assertEquals(1_000, clock.parks);
        assertEquals(150_000, latenessNs.getValueAtPercentile(50.0), 150_000 * 0.001);
        assertEquals(START_NS + 3_000 * PERIOD_NS + 50_000, clock.nowNs);
    }

    @Test
    void shouldRestartWithAnEmptyHistogramAndAFreshSchedule() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 10, 0);
        LatenessRecorder recorder = new LatenessRecorder(ParkThenSpinPacer.spinOnly(clock), clock, PERIOD_NS);
        recorder.paceAll(10);
        clock.nowNs += 7 * PERIOD_NS;
        recorder.start();
        assertEquals(0, recorder.latenessNs().getTotalCount());
        assertEquals(0, recorder.paceNext(), "the first deadline is one period after start(), not in the past");
    }

    @Test
    void shouldClampHugeLatenessButStillCountIt() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 10, 0);
        LatenessRecorder recorder = new LatenessRecorder(ParkThenSpinPacer.spinOnly(clock), clock, PERIOD_NS);
        recorder.start();
        clock.nowNs += 3 * LatenessRecorder.HIGHEST_TRACKABLE_NS;
        assertTrue(recorder.paceNext() > LatenessRecorder.HIGHEST_TRACKABLE_NS);
        assertEquals(1, recorder.latenessNs().getTotalCount());
    }

    @Test
    void shouldNotAllocatePerSend() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        SimulatedClock clock = new SimulatedClock(START_NS, 5, 10, 30_000);
        LatenessRecorder recorder = new LatenessRecorder(new ParkThenSpinPacer(clock, 20_000), clock, PERIOD_NS);
        recorder.paceAll(20_000); // warm-up: class loading and compilation may allocate
        long beforeBytes = threads.getCurrentThreadAllocatedBytes();
        recorder.paceAll(100_000);
        long allocatedBytes = threads.getCurrentThreadAllocatedBytes() - beforeBytes;
        assertTrue(allocatedBytes < 10_000, "allocated " + allocatedBytes + " bytes for 100000 sends");
    }
}
