package io.github.twping.testing.perf.compare;

import io.github.twping.testing.perf.compare.SessionMetrics.Metric;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.Arrays;

/** The arithmetic of the side-by-side harness: -R parsing, legs, exact percentiles, spreads, ratios. */
class CompareArithmeticPerfTest {
    /** 1 µs in NTP units is not an integer; these offsets are exact: 2^32 = 1 s, 2^22 ≈ 976.5625 µs. */
    private static final long SECOND = 1L << 32;
    private static final long T0 = 0xE8F1_0000_0000_0000L; // a 2026 NTP time, unsigned above Long.MAX_VALUE

    private static String line(long seq, long t1, long t2, long t3, long t4) {
        return seq + " " + Long.toUnsignedString(t1)
                + " 0 2.32831e-10 " + Long.toUnsignedString(t2) + " 0 2.32831e-10 255 " + seq + " "
                + Long.toUnsignedString(t3) + " 0 2.32831e-10 " + Long.toUnsignedString(t4) + " 0 2.32831e-10 255";
    }

    @Test
    void shouldParseTheFourTimestampsOfARawLineAboveSignedRange() {
        RawRecord r = RawRecord.parse("0 17201895630662381031 0 2.32831e-10 17201895630662418552 0 2.32831e-10 255 "
                + "1 17201895630663684678 0 2.32831e-10 17201895630663929908 0 2.32831e-10 255");
        assertEquals(0, r.seq());
        assertEquals("17201895630662381031", Long.toUnsignedString(r.sendNtp()));
        assertEquals("17201895630662418552", Long.toUnsignedString(r.reflRecvNtp()));
        assertEquals("17201895630663684678", Long.toUnsignedString(r.reflSendNtp()));
        assertEquals("17201895630663929908", Long.toUnsignedString(r.recvNtp()));
        // 37521 NTP units = 37521 / 2^32 s = 8736.0 ns (rounded down)
        assertEquals(8736, r.forwardNs());
        assertTrue(!r.lost());
    }

    @Test
    void shouldRecogniseALostRecordAndRejectOtherLines() {
        RawRecord lost = RawRecord.parse("57 16788979109258429440 0 2.32831e-10 00000000000000000000 0 2.32831e-10 255 "
                + "0 00000000000000000000 0 2.32831e-10 00000000000000000000 0 2.32831e-10 255");
        assertTrue(lost.lost());
        assertThrows(IllegalArgumentException.class, () -> RawRecord.parse("twping: NTP: Status UNSYNC"));
        assertThrows(IllegalArgumentException.class, () -> RawRecord.parse("a b c d e f g h i j k l m n o p"));
    }

    @Test
    void shouldSplitTheRoundTripIntoLegsAndProcessing() {
        // forward 1/4 s, processing 1/8 s, back 1/2 s
        RawRecord r = new RawRecord(3, T0, T0 + SECOND / 4, T0 + SECOND / 4 + SECOND / 8,
                T0 + SECOND / 4 + SECOND / 8 + SECOND / 2);
        assertEquals(250_000_000, r.forwardNs());
        assertEquals(125_000_000, r.processingNs());
        assertEquals(500_000_000, r.backNs());
        assertEquals(750_000_000, r.rttNs());
    }

    @Test
    void shouldConvertNegativeNtpDifferencesExactly() {
        assertEquals(-1_000_000_000L, RawRecord.ntpDeltaToNs(-SECOND));
        assertEquals(-1, RawRecord.ntpDeltaToNs(-1));            // -0.23 ns rounds toward -infinity
        assertEquals(0, RawRecord.ntpDeltaToNs(1));
        assertEquals(999_999_999, RawRecord.ntpDeltaToNs(SECOND - 1));
    }

    @Test
    void shouldTakeNearestRankPercentiles() {
        long[] values = new long[1000];
        for (int i = 0; i < values.length; i++) {
            values[i] = 1000 - i; // 1000 .. 1, unsorted
        }
        ExactPercentiles p = ExactPercentiles.of(values, values.length);
        assertEquals(500, p.percentile(50));
        assertEquals(900, p.percentile(90));
        assertEquals(990, p.percentile(99));
        assertEquals(999, p.percentile(99.9));
        assertEquals(1000, p.percentile(100));
        assertEquals(1, p.percentile(0));
        assertArrayEquals(new long[] {500, 900, 990, 999, 1000}, p.reported());
        ExactPercentiles three = ExactPercentiles.of(new long[] {30, 10, 20, 99}, 3);
        assertEquals(20, three.percentile(50));
        assertEquals(30, three.percentile(99.9));
        assertNull(ExactPercentiles.of(new long[0], 0).reported());
        assertThrows(IllegalStateException.class, () -> ExactPercentiles.of(new long[0], 0).percentile(50));
        assertThrows(IllegalArgumentException.class, () -> p.percentile(101));
    }

    @Test
    void shouldCountLossDuplicatesAndLatenessAgainstTheSchedule() {
        long[] schedule = {T0, T0 + SECOND, T0 + 2 * SECOND};
        List<String> lines = List.of(
                line(0, T0 + SECOND / 1000, T0 + SECOND / 500, T0 + SECOND / 400, T0 + SECOND / 200),
                line(1, T0 + SECOND, 0, 0, 0),                                  // lost
                line(2, T0 + 2 * SECOND + SECOND / 100, T0 + 2 * SECOND + SECOND / 50, T0 + 2 * SECOND + SECOND / 40,
                        T0 + 2 * SECOND + SECOND / 20),
                line(2, T0 + 2 * SECOND + SECOND / 100, T0 + 2 * SECOND + SECOND / 50, T0 + 2 * SECOND + SECOND / 40,
                        T0 + 2 * SECOND + SECOND / 20),                         // duplicate
                "");
        SessionMetrics m = SessionMetrics.of(SessionMetrics.parseRaw(lines), schedule);
        assertEquals(3, m.sent());
        assertEquals(1, m.lost());
        assertEquals(1, m.duplicates());
        assertEquals(2, m.distribution(Metric.RTT).count());
        // lateness: 1 ms and 10 ms (1/1000 s and 1/100 s of NTP, rounded down to the ns)
        ExactPercentiles lateness = m.distribution(Metric.LATENESS);
        assertEquals(2, lateness.count());
        assertEquals(999_999, lateness.percentile(50));
        assertEquals(9_999_999, lateness.percentile(100));
        // forward of seq 0: 1/500 - 1/1000 s = 1 ms
        assertEquals(999_999, m.distribution(Metric.FORWARD).percentile(0), 1);
        assertEquals(3, m.scheduled());
        assertEquals(4, SessionMetrics.of(SessionMetrics.parseRaw(lines), new long[4]).scheduled());
        SessionMetrics noSchedule = SessionMetrics.of(SessionMetrics.parseRaw(lines), null);
        assertEquals(0, noSchedule.distribution(Metric.LATENESS).count());
    }

    @Test
    void shouldSpreadRoundsAndIgnoreMissingOnes() {
        RoundSpread s = RoundSpread.of(30, Double.NaN, 10, 20, 40);
        assertEquals(10, s.min());
        assertEquals(20, s.median()); // lower of the two middle values of 4 rounds
        assertEquals(40, s.max());
        assertEquals(4, s.rounds());
        assertEquals(RoundSpread.NONE, RoundSpread.of(Double.NaN));
        assertEquals(0.5, RoundSpread.ratio(RoundSpread.of(10), RoundSpread.of(20)));
        assertTrue(Double.isNaN(RoundSpread.ratio(RoundSpread.of(10), RoundSpread.of(0))));
        assertTrue(Double.isNaN(RoundSpread.ratio(RoundSpread.NONE, RoundSpread.of(3))));
        assertEquals("20.0 (10.0–40.0)", CompareRunner.cell(RoundSpread.of(10_000, 20_000, 40_000)));
        assertEquals("3 (2–5)", CompareRunner.cell(RoundSpread.of(2, 3, 5), 0));
        assertEquals("–", CompareRunner.cell(RoundSpread.NONE));
    }

    /** A /proc/PID/task/TID/stat line: utime is field 14, stime 15, processor 39 (proc(5)). */
    private static String stat(long tid, String name, long utime, long stime, int cpu) {
        String[] f = new String[52];
        Arrays.fill(f, "0");
        f[2] = "S";
        f[13] = Long.toString(utime);
        f[14] = Long.toString(stime);
        f[38] = Integer.toString(cpu);
        return tid + " (" + name + ") " + String.join(" ", Arrays.copyOfRange(f, 2, f.length));
    }

    @Test
    void shouldReadThisThreadsOwnStatLine() throws Exception {
        ThreadPlacement p = new ThreadPlacement();
        p.sample(ProcessHandle.current().pid());
        assertTrue(p.groups().values().stream().mapToLong(g -> g.samplesByCpu().size()).sum() > 0);
        int cpus = Runtime.getRuntime().availableProcessors();
        assertTrue(p.groups().values().stream().allMatch(g -> g.samplesByCpu().keySet().stream()
                .allMatch(c -> c >= 0 && c < Math.max(cpus, 1024))));
    }

    @Test
    void shouldGroupThreadsAndReadTheirCpuFromProcStat() {
        ThreadPlacement p = new ThreadPlacement();
        p.record(stat(101, "reflector-9001", 7, 3, 1));
        p.record(stat(102, "reflector-9002", 1, 1, 0));
        p.record(stat(101, "reflector-9001", 8, 3, 1));
        p.record(stat(103, "C2 Compiler", 8, 3, 1));
        ThreadPlacement.Group g = p.groups().get("reflector-#");
        assertEquals(13, g.cpuTicks()); // last sample of 101 (8+3) + 102 (1+1)
        assertEquals(2L, g.samplesByCpu().get(1));
        assertEquals(1L, g.samplesByCpu().get(0));
        assertEquals("cpu0 33%, cpu1 67%", g.describe());
        assertTrue(p.groups().containsKey("C# Compiler"));
        assertThrows(IllegalArgumentException.class, () -> p.record("garbage"));
    }

    @Test
    void shouldParseOptionsAndRejectBadOnesWithOneLine() {
        CompareOptions o = CompareOptions.parse(new String[] {"--rounds", "5", "--schedule", "0.0001f",
                "--reflectors", "twampd,loopback", "--ours-args", "--cpu 0  --spin 50", "--no-floor", "--nice", "-10"});
        assertEquals(-10, o.nice());
        CompareOptions v = CompareOptions.parse(new String[] {"--variant", "spin0=--spin 0", "--variant", "cpu0=--cpu 0 --spin 50"});
        assertEquals(List.of("spin0", "cpu0"), List.copyOf(v.variants().keySet()));
        assertEquals(List.of("--cpu", "0", "--spin", "50"), v.variants().get("cpu0"));
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--variant", "nolabel"}));
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--variant", "ours=--spin 0"}));
        assertThrows(IllegalArgumentException.class,
                () -> CompareOptions.parse(new String[] {"--variant", "a=x", "--variant", "a=y"}));
        assertEquals(5, o.rounds());
        assertEquals(10_000, o.rate(), 1e-6);
        assertEquals(List.of("twampd", "loopback"), o.reflectors());
        assertEquals(List.of("--cpu", "0", "--spin", "50"), o.oursArgs());
        assertTrue(!o.floor());
        CompareOptions d = CompareOptions.parse(new String[0]);
        assertEquals(3, d.rounds());
        assertEquals(CompareOptions.DEFAULT_SAMPLE_MS, d.sampleMs());
        assertEquals(0, d.sampleMs(), "no sampling unless asked: it disturbs the machine under test");
        assertEquals(5, CompareOptions.parse(new String[] {"--sample-ms", "5"}).sampleMs());
        assertEquals("--sample-ms: '-1' is not an integer 0..1000 (0: no sampling)", assertThrows(
                IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--sample-ms", "-1"})).getMessage());
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--sample-ms", "x"}));
        assertEquals(2000, d.count());
        assertEquals(500, d.rate(), 1e-9);
        assertEquals("--rounds: 'x' is not a positive integer",
                assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--rounds", "x"})).getMessage());
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--reflectors", "owampd"}));
        assertEquals(List.of("c-twampd", "twampd", "loopback"), d.reflectors());
        assertEquals(List.of("stamp", "light"),
                CompareOptions.parse(new String[] {"--reflectors", "stamp,light"}).reflectors());
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--schedule", "0.1,0.2"}));
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--count"}));
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--bogus"}));
        assertThrows(IllegalArgumentException.class, () -> CompareOptions.parse(new String[] {"--nice", "-21"}));
    }
}
