package io.github.twping.ffm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/** The realtime clock and its linking in the background. */
class RealtimeClockTest {
    /**
     * twping links the clock on a thread of its own while the control connection is made (docs/CLIENT.md,
     * "Start-up"): that thread is a daemon and ends once the clock is linked, and the clock then reads the same
     * CLOCK_REALTIME as {@code Instant.now()} (within a second: two reads, not a bound on their speed).
     */
    @Test
    void theBackgroundLinkEndsAndTheClockReadsTheRealtimeClock() throws Exception {
        Thread link = RealtimeClock.linkInBackground();
        assertTrue(link.isDaemon(), "a daemon: it never holds the JVM up");
        link.join();
        assertFalse(link.isAlive());
        long before = epochNs(Instant.now());
        long now = RealtimeClock.epochNs();
        long after = epochNs(Instant.now());
        long slack = Duration.ofSeconds(1).toNanos();
        assertTrue(now >= before - slack && now <= after + slack, before + " <= " + now + " <= " + after);
    }

    private static long epochNs(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
