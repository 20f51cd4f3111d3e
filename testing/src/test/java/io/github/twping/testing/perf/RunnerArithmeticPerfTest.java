package io.github.twping.testing.perf;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Options, per-packet CPU, summaries and formatting of the perftest runner. */
class RunnerArithmeticPerfTest {

    @Test
    void shouldDeriveCountsFromRateAndSeconds() {
        RunnerOptions o = RunnerOptions.parse(new String[] {"--rates", "1000,10000", "--seconds", "2"});
        assertEquals("loopback", o.mode());
        assertEquals(List.of(1000.0, 10000.0), o.rates());
        assertEquals(2000, o.countFor(1000));
        assertEquals(20000, o.countFor(10000));
        assertEquals(List.of("kernel", "user", "nio"), o.clients());
        assertTrue(o.baseline());
    }

    @Test
    void shouldDefaultHighRateTo100000PacketsAt20000PerSecond() {
        RunnerOptions o = RunnerOptions.parse(new String[] {"highrate"});
        assertEquals(List.of(20000.0), o.rates());
        assertEquals(100_000, o.countFor(20000));
        assertEquals(List.of("kernel"), o.clients());
        // 5 s of sending: deadline 2 x 5 + 30 s
        assertEquals(40_000_000_000L, o.deadlineNs(20000, 100_000));
    }

    @Test
    void shouldConvertSpinMicrosToNanos() {
        assertEquals(25_000, RunnerOptions.parse(new String[] {"--spin", "25"}).spinNs());
        assertEquals(100_000, RunnerOptions.parse(new String[0]).spinNs());
    }

    @Test
    void shouldRejectBadArgumentsWithOneMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RunnerOptions.parse(new String[] {"--rates", "1000,x"}));
        assertEquals("--rates: 'x' is not a number", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RunnerOptions.parse(new String[] {"fast"}));
        assertThrows(IllegalArgumentException.class, () -> RunnerOptions.parse(new String[] {"--count"}));
        assertThrows(IllegalArgumentException.class, () -> RunnerOptions.parse(new String[] {"--count", "0"}));
        assertThrows(IllegalArgumentException.class, () -> RunnerOptions.parse(new String[] {"--clients", "dpdk"}));
    }

    @Test
    void shouldDivideCpuPerPacket() {
        assertEquals(2_500, RunResult.perPacket(10_000_000, 4_000));
        assertEquals(0, RunResult.perPacket(10_000_000, 0));
        assertEquals(0, RunResult.perPacket(-1, 100));
    }

    @Test
    void shouldSummarisePercentilesOfAHistogram() {
        Histogram h = new Histogram(RttStatistics.MAX_TRACKED_NS, 3);
        for (long v = 1; v <= 1000; v++) {
            h.recordValue(v * 1000);
        }
        LatencySummary s = LatencySummary.of(h, 1000, 1_000_000);
        assertEquals(1000, s.count());
        assertEquals(500_000, s.p50Ns(), 500);
        assertEquals(990_000, s.p99Ns(), 1000);
        assertEquals(999_000, s.p999Ns(), 1000);
        assertEquals("1.0", s.micros(s.minNs()));
        assertEquals("1000.0", s.micros(s.maxNs()));
    }

    @Test
    void shouldKeepPercentilesWithinTheExactExtremes() {
        Histogram h = new Histogram(RttStatistics.MAX_TRACKED_NS, 3);
        h.recordValue(3_859_300);
        h.recordValue(3_859_300);
        LatencySummary s = LatencySummary.of(h, 3_859_300, 3_859_300);
        assertEquals(3_859_300, s.p999Ns());
        assertEquals(3_859_300, s.p50Ns());
    }

    @Test
    void shouldFormatMicrosWithOneDecimal() {
        assertEquals("12.3", LatencySummary.formatMicros(12_345));
        assertEquals("0.0", LatencySummary.formatMicros(0));
        assertEquals("-0.5", LatencySummary.formatMicros(-499));
        assertEquals("–", LatencySummary.of(new Histogram(3)).micros(5));
    }

    @Test
    void shouldReadTheDropsColumnOfTheSocketWithThePort() {
        List<String> lines = List.of(
                "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops",
                "  101: 0100007F:1F90 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1234 2 0000000000000000 0",
                "  102: 0100007F:DEAD 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1235 2 0000000000000000 17");
        assertEquals(17, UdpSocketDrops.dropsOf(lines, 0xDEAD));
        assertEquals(0, UdpSocketDrops.dropsOf(lines, 8080));
        assertEquals(-1, UdpSocketDrops.dropsOf(lines, 9));
    }

    @Test
    void shouldPrintWholeRatesWithoutDecimals() {
        assertEquals("20000", ResultTables.rate(20000));
        assertEquals("0.5", ResultTables.rate(0.5));
    }
}
