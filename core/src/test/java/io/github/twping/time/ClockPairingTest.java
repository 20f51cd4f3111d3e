package io.github.twping.time;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pairing of the monotonic and the wall clock keeps the narrowest attempt. */
class ClockPairingTest {

    @Test
    void shouldKeepTheNarrowestAttemptAndItsMidpoint() {
        // attempt 1 preempted between the reads (window 5 ms), attempt 2 narrow (400 ns): kept at once
        ArrayDeque<Long> mono = new ArrayDeque<>(List.of(1_000L, 5_001_000L, 6_000_000L, 6_000_400L));
        ArrayDeque<Long> wall = new ArrayDeque<>(List.of(111L << 32, 222L << 32));
        ClockPairing p = ClockPairing.of(mono::removeFirst, wall::removeFirst);
        assertEquals(6_000_200L, p.monoNs());
        assertEquals(222L << 32, p.ntp());
        assertEquals(400, p.windowNs());
        assertTrue(mono.isEmpty(), "stopped after the narrow attempt");
        // one second after the pairing's wall time is one second after its monotonic time
        assertEquals(6_000_200L + 1_000_000_000L, p.monoNsOf((222L << 32) + (1L << 32)));
        assertEquals(6_000_200L - 500_000_000L, p.monoNsOf((222L << 32) - (1L << 31)));
    }

    @Test
    void shouldBoundTheAttemptsWhenNoneIsNarrow() {
        long[] t = {0};
        int[] wallReads = {0};
        ClockPairing p = ClockPairing.of(() -> t[0] += 10_000, () -> (long) ++wallReads[0]);
        assertEquals(ClockPairing.ATTEMPTS, wallReads[0]);
        assertEquals(10_000, p.windowNs());
        assertEquals(1, p.ntp(), "the first of equally wide attempts");
    }

    @Test
    void shouldPairTheRealClocksWithinTheTimeThePairingTook() {
        // the window is the narrowest attempt's monotonic span, so it lies within the call; how narrow it is
        // depends on the machine's load (a figure for a benchmark, not a unit test)
        long before = System.nanoTime();
        ClockPairing p = ClockPairing.of(WallClock.system());
        long after = System.nanoTime();
        assertTrue(p.windowNs() >= 0 && p.windowNs() <= after - before, "window " + p.windowNs() + " in a call of "
                + (after - before) + " ns");
        assertTrue(p.monoNs() >= before && p.monoNs() <= after, "the pair's monotonic reading is within the call");
        assertEquals(p.monoNs(), p.monoNsOf(p.ntp()));
    }
}
