package io.github.twping.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.twping.time.NtpTime;
import org.junit.jupiter.api.Test;

class StartTimesTest {
    private static final long NOW = 0xEEB7DD60_00000000L;

    @Test
    void shouldAddThreeRttPlusOneSecond() {
        long rtt = NtpTime.fromSeconds(0.25);
        assertEquals(NOW + NtpTime.fromSeconds(1.75), StartTimes.startTimeNtp(NOW, rtt, 0, false));
        assertEquals(NOW + NtpTime.fromSeconds(1.5), StartTimes.startTimeNtp(NOW, rtt, 0, true));
    }

    @Test
    void shouldUseZOnlyWhenLarger() {
        long rtt = NtpTime.fromSeconds(0.25);
        assertEquals(NOW + NtpTime.fromSeconds(5.3), StartTimes.startTimeNtp(NOW, rtt, 5.3, false));
        assertEquals(NOW + NtpTime.fromSeconds(1.75), StartTimes.startTimeNtp(NOW, rtt, 1.2, false));
        assertEquals(NOW + NtpTime.fromSeconds(1.75), StartTimes.startTimeNtp(NOW, rtt, -3, false));
    }

    @Test
    void shouldReproduceRecordedTimeout() {
        // enc capture (appendix C.1): Timeout 0x00000002005faebc = rtt_bound + 2 s, no -L
        long rtt = 0x00000000005faebcL;
        assertEquals(0x00000002005faebcL, StartTimes.lossTimeoutNtp(0, rtt));
        assertEquals(NtpTime.fromSeconds(0.2), StartTimes.lossTimeoutNtp(0.2, rtt));
    }

    @Test
    void shouldComputeApproximateDurationOfSpecExamples() {
        long rtt = 0;
        double loss = StartTimes.lossTimeoutSeconds(0, rtt);
        long start = StartTimes.startTimeNtp(NOW, rtt, 0, false);
        assertEquals("13.0", approximately(start, 100, new ScheduleSlot[] {ScheduleSlot.DEFAULT}, loss));
        ScheduleSlot tenMs = ScheduleSlot.fixedOffset(NtpTime.fromSeconds(0.01));
        assertEquals("3.1", approximately(start, 10, new ScheduleSlot[] {tenMs}, loss));
        assertEquals("3.2", approximately(start, 20, new ScheduleSlot[] {tenMs}, loss));
        assertEquals("3.3", approximately(start, 20,
            new ScheduleSlot[] {tenMs, ScheduleSlot.fixedOffset(NtpTime.fromSeconds(0.02))}, loss));
        assertEquals("2.2", approximately(start, 100, new ScheduleSlot[] {tenMs}, StartTimes.lossTimeoutSeconds(0.2, rtt)));
        assertEquals("3.0", approximately(start, 0, new ScheduleSlot[] {ScheduleSlot.DEFAULT}, loss));
        assertEquals("13.0", approximately(start, 1000, new ScheduleSlot[] {tenMs}, loss));
        assertEquals(0.0, StartTimes.packetRate(new ScheduleSlot[] {ScheduleSlot.fixedOffset(0)}));
    }

    private static String approximately(long start, long count, ScheduleSlot[] slots, double loss) {
        double duration = StartTimes.sessionDurationSeconds(count, slots, loss, 0);
        return String.format("%.1f", StartTimes.secondsUntilResults(start, NOW, duration));
    }
}
