package io.github.twping.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link WarmUpPlan}: no warm-up for a short session ({@code -c 1}), the short one for a few thousand packets at a
 * few hundred per second, the full one for fast or long sessions; the stop before the start time.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WarmUpPlanTest {
    private static ScheduleSlot[] every(double seconds, boolean fixed) {
        long ntp = NtpTime.fromSeconds(seconds);
        return new ScheduleSlot[] {fixed ? ScheduleSlot.fixedOffset(ntp) : ScheduleSlot.exponential(ntp)};
    }

    @Test
    void noWarmUpForAShortSession() {
        assertEquals(0, WarmUpPlan.packets(1, every(0.1, false)), "-c 1");
        assertEquals(0, WarmUpPlan.packets(99, every(0.00001, true)), "99 packets, even fast");
        assertEquals(0, WarmUpPlan.packets(0, every(0.1, false)));
    }

    @Test
    void theShortWarmUpForAFewThousandPacketsAtAFewHundredPerSecond() {
        assertEquals(WarmUpPlan.C1_PACKETS, WarmUpPlan.packets(100, every(0.1, false)));
        assertEquals(WarmUpPlan.C1_PACKETS, WarmUpPlan.packets(2000, every(0.002, true)), "2000 at 500/s");
        assertEquals(WarmUpPlan.C1_PACKETS, WarmUpPlan.packets(5000, every(0.001, false)), "5000 at 1000/s exp");
    }

    @Test
    void socketRoundTripsFollowOnlyTheFullWarmUp() {
        assertEquals(0, WarmUpPlan.socketRoundTrips(WarmUpPlan.C1_PACKETS), "the short warm-up: none");
        assertEquals(0, WarmUpPlan.socketRoundTrips(0));
        assertEquals(WarmUpPlan.SOCKET_ROUND_TRIPS, WarmUpPlan.socketRoundTrips(WarmUpPlan.FULL_PACKETS));
        assertEquals(io.github.twping.ffm.SocketWarmUp.DEFAULT_ROUND_TRIPS / 4, WarmUpPlan.SOCKET_ROUND_TRIPS,
                "a quarter of the socket warm-up's own default, as before");
    }

    @Test
    void theFullWarmUpForAFastOrLongSession() {
        assertEquals(WarmUpPlan.FULL_PACKETS, WarmUpPlan.packets(500_000, every(0.00002, true)), "50,000/s");
        assertEquals(WarmUpPlan.FULL_PACKETS, WarmUpPlan.packets(1000, every(0.0005, true)), "2000/s");
        assertEquals(WarmUpPlan.FULL_PACKETS, WarmUpPlan.packets(20_000, every(1, false)), "a long session");
        assertEquals(WarmUpPlan.FULL_PACKETS, WarmUpPlan.packets(1000, every(0, true)), "back to back");
        // a mixed schedule: its mean interval sets the rate (5 x 20 us + 300 us: 66.7 us, 15,000/s)
        ScheduleSlot[] mixed = TwampSessionWarmUp.slots(NtpTime.fromSeconds(0.00002), 5, NtpTime.fromSeconds(0.0003));
        assertEquals(WarmUpPlan.FULL_PACKETS, WarmUpPlan.packets(1000, mixed));
        assertTrue(WarmUpPlan.ratePerSecond(mixed) > 14_000 && WarmUpPlan.ratePerSecond(mixed) < 16_000);
    }

    @Test
    void endsBeforeTheStartTimeAndRunsAtMostItsMaximum() {
        long start = 10_000_000_000L;
        assertEquals(start - WarmUpPlan.STOP_BEFORE_START_NS, WarmUpPlan.endNanoTime(start));
        assertEquals(WarmUpPlan.MAX_NS, WarmUpPlan.maxNs(start, 0), "far from the start: the maximum");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(50),
                WarmUpPlan.maxNs(start, start - WarmUpPlan.STOP_BEFORE_START_NS - TimeUnit.MILLISECONDS.toNanos(50)));
        assertTrue(WarmUpPlan.maxNs(start, start - WarmUpPlan.STOP_BEFORE_START_NS / 2) < 0, "too close: none");
    }
}
