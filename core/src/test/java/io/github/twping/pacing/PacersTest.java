package io.github.twping.pacing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PacersTest {
    private static final long START_NS = 1_000_000_000L;

    @ParameterizedTest
    @ValueSource(strings = {"busy-spin", "park", "park-then-spin-0us", "park-then-spin-50us"})
    void shouldNeverReturnBeforeTheDeadlineAndReportTheTrueLateness(String spec) {
        SimulatedClock clock = new SimulatedClock(START_NS, 7, 13, 30_000);
        Pacer pacer = PacerSpecs.create(spec, clock);
        for (int i = 1; i <= 200; i++) {
            long deadlineNs = START_NS + i * 100_000L;
            long lateNs = pacer.awaitDeadline(deadlineNs);
            // The pacer's last clock read is the instant it returned; it cost readCostNs to make.
            assertEquals(clock.nowNs - clock.readCostNs - deadlineNs, lateNs, spec + " send " + i);
            assertTrue(lateNs >= 0, spec + " returned early by " + -lateNs + " ns");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"busy-spin", "park", "park-then-spin-100us", "backoff-1000us"})
    void shouldReturnAtOnceWhenTheDeadlineHasPassed(String spec) {
        SimulatedClock clock = new SimulatedClock(START_NS, 5, 13, 30_000);
        long lateNs = PacerSpecs.create(spec, clock).awaitDeadline(START_NS - 42_000);
        assertEquals(42_000, lateNs);
        assertEquals(0, clock.parks);
        assertEquals(0, clock.spins);
        assertEquals(START_NS + 5, clock.nowNs, "exactly one clock read");
    }

    @Test
    void shouldParkOnlyUntilTheSpinWindowThenSpinToTheDeadline() {
        SimulatedClock clock = new SimulatedClock(START_NS, 10, 20, 0);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, 100_000);
        long deadlineNs = START_NS + 1_000_000;
        long lateNs = pacer.awaitDeadline(deadlineNs);
        assertEquals(1, clock.parks);
        assertEquals(900_000, clock.lastParkRequestNs, "park ends where the spin window starts");
        assertTrue(clock.spins >= 100_000 / 30 - 1, "spun through the window: " + clock.spins);
        assertTrue(lateNs < 30, "a spin overshoots by less than one step plus one read: " + lateNs);
    }

    @Test
    void shouldNotParkInsideTheSpinWindow() {
        SimulatedClock clock = new SimulatedClock(START_NS, 10, 20, 0);
        new ParkThenSpinPacer(clock, 100_000).awaitDeadline(START_NS + 60_000);
        assertEquals(0, clock.parks);
        assertTrue(clock.spins > 0);
    }

    @Test
    void shouldNotSpinWhenTheParkOvershootsTheWholeWindow() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 150_000);
        long lateNs = new ParkThenSpinPacer(clock, 100_000).awaitDeadline(START_NS + 1_000_000);
        assertEquals(0, clock.spins);
        assertEquals(50_000, lateNs);
    }

    @Test
    void shouldParkForTheTimeLeftAndAgainAfterAnEarlyWakeUp() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        clock.spuriousWakeUps = 2;
        long lateNs = ParkThenSpinPacer.parkOnly(clock).awaitDeadline(START_NS + 1_000_000);
        assertEquals(3, clock.parks);
        assertEquals(250_000, clock.lastParkRequestNs, "the time left after two half parks");
        assertEquals(0, clock.spins);
        assertEquals(0, lateNs);
    }

    @Test
    void shouldBusySpinWithoutParking() {
        SimulatedClock clock = new SimulatedClock(START_NS, 10, 20, 0);
        long lateNs = ParkThenSpinPacer.spinOnly(clock).awaitDeadline(START_NS + 10_000);
        assertEquals(0, clock.parks);
        assertEquals(10_000 / 30 + 1, clock.spins);
        assertTrue(lateNs < 30, "late by " + lateNs);
    }

    @Test
    void shouldResetTheIdleStrategyOncePerDeadlineAndIdleUntilIt() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 0, 0);
        CountingIdleStrategy idle = new CountingIdleStrategy(clock, 1_000);
        BackoffPacer pacer = new BackoffPacer(clock, idle);
        assertEquals(0, pacer.awaitDeadline(START_NS + 10_000));
        assertEquals(1, idle.resets);
        assertEquals(10, idle.idles);
        pacer.awaitDeadline(START_NS + 20_500);
        assertEquals(2, idle.resets);
        assertEquals(21, idle.idles);
    }

    @Test
    void shouldCreateThePacerEachNameStandsFor() {
        SimulatedClock clock = new SimulatedClock(0, 0, 0, 0);
        assertEquals(Long.MAX_VALUE, assertInstanceOf(ParkThenSpinPacer.class, PacerSpecs.create("busy-spin", clock))
                .spinNs(), "busy-spin: the window is the whole wait");
        assertEquals(0, assertInstanceOf(ParkThenSpinPacer.class, PacerSpecs.create("park", clock)).spinNs());
        assertInstanceOf(BackoffPacer.class, PacerSpecs.create("backoff-50us", clock));
        ParkThenSpinPacer parkThenSpin = assertInstanceOf(ParkThenSpinPacer.class,
                PacerSpecs.create("park-then-spin-50us", clock));
        assertEquals(50_000, parkThenSpin.spinNs());
        for (String spec : PacerSpecs.DEFAULTS) {
            assertTrue(PacerSpecs.create(spec, clock) != null, spec);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "spin", "park-then-spin", "park-then-spin--5us", "park-then-spin-5ms", "backoff-0us",
            "park-then-spin-99999999us"})
    void shouldRejectUnknownNames(String spec) {
        assertNull(PacerSpecs.create(spec, new SimulatedClock(0, 0, 0, 0)));
    }

    @Test
    void shouldCapTheSpinWindowAtAQuarterOfTheInterval() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, 100_000);
        long deadlineNs = START_NS + 200_000;
        long lateNs = pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 200_000);
        assertEquals(1, clock.parks);
        assertEquals(150_000, clock.lastParkRequestNs, "a 200 us interval spins for at most 50 us");
        assertEquals(50_000 / 20, clock.spins);
        assertEquals(0, lateNs);
    }

    @Test
    void shouldCapTheSpinWindowAtHalfTheIntervalForARealTimeSender() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, 1_000_000, ParkThenSpinPacer.HALF_INTERVAL);
        long deadlineNs = START_NS + 200_000;
        assertEquals(0, pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 200_000));
        assertEquals(1, clock.parks);
        assertEquals(100_000, clock.lastParkRequestNs, "a 200 us interval spins for at most 100 us");
        assertEquals(100_000 / 20, clock.spins);
        assertEquals(ParkThenSpinPacer.HALF_INTERVAL, pacer.intervalShareShift());
        assertThrows(IllegalArgumentException.class, () -> new ParkThenSpinPacer(clock, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new ParkThenSpinPacer(clock, 1, 17));
    }

    /** Waits {@code count} deadlines {@code intervalNs} apart after {@code fromNs}; returns the last deadline. */
    private static long waitMany(ParkThenSpinPacer pacer, long fromNs, int count, long intervalNs) {
        long deadlineNs = fromNs;
        for (int i = 0; i < count; i++) {
            deadlineNs += intervalNs;
            pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - intervalNs);
        }
        return deadlineNs;
    }

    @Test
    void shouldKeepTheStartWindowUntilEnoughParksWereSeen() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 5_120);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE);
        assertEquals(ParkThenSpinPacer.ADAPTIVE_START_NS, pacer.windowNs());
        waitMany(pacer, START_NS, ParkThenSpinPacer.ADAPTIVE_MIN_SAMPLES - 1, 2_000_000);
        assertEquals(ParkThenSpinPacer.ADAPTIVE_START_NS, pacer.windowNs(), "31 parks: still the start window");
        waitMany(pacer, clock.nowNs, 1, 2_000_000);
        assertEquals(5_120 + ParkThenSpinPacer.ADAPTIVE_MARGIN_NS, pacer.windowNs(), "32 parks: overshoot plus margin");
    }

    @Test
    void shouldSpinLessOnceItLearntThatSleepsEndOnTime() {
        // sleeps end 5.12 us late: the learnt window is 15.12 us, so a send at 500/s spins 10 us, not 95
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 1_000, 5_120);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE);
        long deadlineNs = waitMany(pacer, START_NS, 100, 2_000_000);
        long spinsBefore = clock.spins;
        long lateNs = pacer.awaitDeadlineAfter(deadlineNs + 2_000_000, deadlineNs);
        assertEquals(0, lateNs);
        assertEquals(10, clock.spins - spinsBefore, "15.12 us window - 5.12 us overshoot = 10 spin steps of 1 us");
        // the fixed window spends 95 steps on the same wait
        SimulatedClock fixedClock = new SimulatedClock(START_NS, 0, 1_000, 5_000);
        new ParkThenSpinPacer(fixedClock, 100_000).awaitDeadlineAfter(START_NS + 2_000_000, START_NS);
        assertEquals(95, fixedClock.spins);
    }

    @Test
    void shouldLeaveTheLatestOnePercentOfTheHistoryUncoveredByDefault() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 5_120);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE);
        assertEquals(99, pacer.coveragePercent());
        long deadlineNs = waitMany(pacer, START_NS, ParkThenSpinPacer.ADAPTIVE_HISTORY, 2_000_000);
        // two late wake-ups (307.2 and 61.44 us) in 256 parks: 254 = 99 % on time, the window stays
        clock.parkOvershootNs = 307_200;
        deadlineNs = waitMany(pacer, deadlineNs, 1, 2_000_000);
        clock.parkOvershootNs = 61_440;
        deadlineNs = waitMany(pacer, deadlineNs, 1, 2_000_000);
        assertEquals(15_120, pacer.windowNs(), "two outliers of 256 are not covered");
        // a third one of 40.96 us: fewer than 99 % on time, the window covers it
        clock.parkOvershootNs = 40_960;
        waitMany(pacer, deadlineNs, 1, 2_000_000);
        assertEquals(50_960, pacer.windowNs());
    }

    @Test
    void shouldCoverThreeQuartersWhenAskedTo() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 5_120);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE,
                ParkThenSpinPacer.QUARTER_INTERVAL, false, 75);
        long deadlineNs = waitMany(pacer, START_NS, ParkThenSpinPacer.ADAPTIVE_HISTORY, 2_000_000);
        assertEquals(15_120, pacer.windowNs());
        // 64 late wake-ups (40.96 us) of 256: a quarter, still uncovered
        clock.parkOvershootNs = 40_960;
        deadlineNs = waitMany(pacer, deadlineNs, 64, 2_000_000);
        assertEquals(15_120, pacer.windowNs(), "64 of 256 late: 192 = 75 % on time");
        // a 65th: fewer than 75 % are on time, so the window covers the late ones
        waitMany(pacer, deadlineNs, 1, 2_000_000);
        assertEquals(50_960, pacer.windowNs(), "65 of 256 late");
    }

    @Test
    void shouldCoverTheShareItIsGiven() {
        // all parks but one end 5.12 us late, one 30.72 us: 100 % covers the late one, 99 % does not
        for (int percent : new int[] {100, 99}) {
            SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 5_120);
            ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE,
                    ParkThenSpinPacer.QUARTER_INTERVAL, false, percent);
            long deadlineNs = waitMany(pacer, START_NS, ParkThenSpinPacer.ADAPTIVE_HISTORY - 1, 2_000_000);
            clock.parkOvershootNs = 30_720;
            waitMany(pacer, deadlineNs, 1, 2_000_000);
            assertEquals(percent == 100 ? 40_720 : 15_120, pacer.windowNs(), percent + " %");
        }
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 5_120);
        assertThrows(IllegalArgumentException.class, () -> new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE,
                ParkThenSpinPacer.QUARTER_INTERVAL, false, 0));
        assertThrows(IllegalArgumentException.class, () -> new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE,
                ParkThenSpinPacer.QUARTER_INTERVAL, false, 101));
    }

    @Test
    void shouldCapTheLearntWindowAndForgetOldOvershoots() {
        // every sleep ends 400 us late: the window stops at the cap (100 us), it does not chase the wake-up
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 400_000);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, ParkThenSpinPacer.ADAPTIVE);
        long deadlineNs = waitMany(pacer, START_NS, 64, 2_000_000);
        assertEquals(ParkThenSpinPacer.ADAPTIVE_MAX_NS, pacer.windowNs());
        // then sleeps end 5.12 us late: once 99 % of the history are on time, the window is 15.12 us
        clock.parkOvershootNs = 5_120;
        deadlineNs = waitMany(pacer, deadlineNs, ParkThenSpinPacer.ADAPTIVE_HISTORY - 3, 2_000_000);
        assertEquals(ParkThenSpinPacer.ADAPTIVE_MAX_NS, pacer.windowNs(), "three late ones still in the history");
        deadlineNs = waitMany(pacer, deadlineNs, 1, 2_000_000);
        assertEquals(15_120, pacer.windowNs(), "two late ones left: uncovered");
        // and the learnt window obeys the interval cap: 40 us between deadlines, a quarter of it
        long spinsBefore = clock.spins;
        pacer.awaitDeadlineAfter(clock.nowNs + 40_000, clock.nowNs);
        assertTrue(clock.spins - spinsBefore <= 10_000 / 20 + 1, "capped at 10 us of spin: " + (clock.spins - spinsBefore));
        assertThrows(IllegalArgumentException.class, () -> new ParkThenSpinPacer(clock, -2));
    }

    @Test
    void shouldFindTheCoveredBucket() {
        int[] counts = new int[128];
        counts[3] = 3;
        counts[9] = 1;
        assertEquals(3 * ParkThenSpinPacer.BUCKET_NS, ParkThenSpinPacer.coveredOvershootNs(counts, 4, 75));
        assertEquals(9 * ParkThenSpinPacer.BUCKET_NS, ParkThenSpinPacer.coveredOvershootNs(counts, 4, 76),
                "76 % of 4 rounds up to all 4");
        assertEquals(3 * ParkThenSpinPacer.BUCKET_NS, ParkThenSpinPacer.coveredOvershootNs(counts, 4, 1));
        counts[127] = 1;
        assertEquals(127 * ParkThenSpinPacer.BUCKET_NS, ParkThenSpinPacer.coveredOvershootNs(counts, 5, 100),
                "the last bucket counts what lies beyond");
        assertEquals(ParkThenSpinPacer.ADAPTIVE_MARGIN_NS, ParkThenSpinPacer.windowFor(-5));
        assertEquals(ParkThenSpinPacer.ADAPTIVE_MAX_NS, ParkThenSpinPacer.windowFor(Long.MAX_VALUE - 1));
    }

    @Test
    void shouldKeepTheWholeWindowForAShortGapOfASlowerSchedule() {
        // an exponential schedule of mean 1 ms: a 200 us gap keeps the 100 us window (not a quarter of 200 us)
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, 100_000, ParkThenSpinPacer.QUARTER_INTERVAL, true);
        long deadlineNs = START_NS + 5_000_000;
        pacer.awaitDeadlineAfter(deadlineNs, START_NS);          // the lead-in: not in the mean
        for (int i = 0; i < 50; i++) {
            deadlineNs += 1_000_000;
            pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 1_000_000);
        }
        assertEquals(1_000_000, pacer.meanIntervalNs());
        long spinsBefore = clock.spins;
        deadlineNs += 200_000;
        assertEquals(0, pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 200_000));
        assertEquals(100_000, clock.lastParkRequestNs, "parks until the 100 us window");
        assertEquals(100_000 / 20, clock.spins - spinsBefore);
        // a sustained higher rate: the mean follows, and the cap is a quarter of the interval again
        for (int i = 0; i < 200; i++) {
            deadlineNs += 100_000;
            pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 100_000);
        }
        assertEquals(100_000, pacer.meanIntervalNs(), 1_000);
        spinsBefore = clock.spins;
        deadlineNs += 100_000;
        pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 100_000);
        assertEquals(25_000 / 20, clock.spins - spinsBefore, 1);
    }

    @Test
    void shouldCapByTheIntervalAloneByDefault() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        ParkThenSpinPacer pacer = new ParkThenSpinPacer(clock, 100_000);
        long deadlineNs = START_NS;
        for (int i = 0; i < 50; i++) {
            deadlineNs += 1_000_000;
            pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 1_000_000);
        }
        long spinsBefore = clock.spins;
        deadlineNs += 200_000;
        pacer.awaitDeadlineAfter(deadlineNs, deadlineNs - 200_000);
        assertEquals(150_000, clock.lastParkRequestNs, "a quarter of the 200 us gap: 50 us of spin");
        assertEquals(50_000 / 20, clock.spins - spinsBefore);
        assertEquals(0, pacer.meanIntervalNs(), "no mean kept");
    }

    @Test
    void shouldUseTheWholeWindowWhenTheIntervalIsLong() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        long deadlineNs = START_NS + 1_000_000;
        new ParkThenSpinPacer(clock, 100_000).awaitDeadlineAfter(deadlineNs, START_NS);
        assertEquals(900_000, clock.lastParkRequestNs);
        assertEquals(100_000 / 20, clock.spins);
    }

    @Test
    void shouldOnlyParkWhenTheIntervalIsZero() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        long deadlineNs = START_NS + 1_000_000;
        assertEquals(0, new ParkThenSpinPacer(clock, 100_000).awaitDeadlineAfter(deadlineNs, deadlineNs));
        assertEquals(1, clock.parks);
        assertEquals(0, clock.spins);
    }

    @Test
    void shouldReturnAtOnceFromAnInterruptedPark() {
        SimulatedClock clock = new SimulatedClock(START_NS, 0, 20, 0);
        clock.spuriousWakeUps = 1;
        Thread.currentThread().interrupt();
        try {
            long lateNs = new ParkThenSpinPacer(clock, 0).awaitDeadline(START_NS + 1_000_000);
            assertEquals(-500_000, lateNs, "woke after half the park and did not park again");
            assertEquals(1, clock.parks);
        } finally {
            assertTrue(Thread.interrupted());
        }
    }

    @Test
    void shouldRejectANegativeSpinWindow() {
        // -1 is ADAPTIVE; every other negative window is refused
        assertThrows(IllegalArgumentException.class, () -> new ParkThenSpinPacer(new SimulatedClock(0, 0, 0, 0), -2));
        assertThrows(IllegalArgumentException.class,
                () -> new ParkThenSpinPacer(new SimulatedClock(0, 0, 0, 0), Long.MIN_VALUE));
    }

    /** Idle strategy that advances the simulated clock by a fixed step per idle and counts calls. */
    private static final class CountingIdleStrategy implements IdleStrategy {
        private final SimulatedClock clock;
        private final long stepNs;
        long idles;
        long resets;

        CountingIdleStrategy(SimulatedClock clock, long stepNs) {
            this.clock = clock;
            this.stepNs = stepNs;
        }

        @Override
        public void idle(int workCount) {
            if (workCount <= 0) {
                idle();
            }
        }

        @Override
        public void idle() {
            idles++;
            clock.nowNs += stepNs;
        }

        @Override
        public void reset() {
            resets++;
        }
    }
}
