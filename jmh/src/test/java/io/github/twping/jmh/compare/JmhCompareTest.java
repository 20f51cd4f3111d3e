package io.github.twping.jmh.compare;

import static io.github.twping.jmh.compare.CompareFixtures.fixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JmhCompareTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return JmhCompare.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static String path(String fixture) {
        return fixture(fixture).toString();
    }

    /** The table row of the benchmark whose name and params are given. */
    private String row(String benchmark, String params) {
        return out().lines()
                .filter(line -> line.startsWith("| " + benchmark + " |") && line.contains("| " + params + " |"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + benchmark + " " + params + " in:\n" + out()));
    }

    @Test
    void shouldExitZeroWhenComparingAResultWithItself() {
        assertEquals(JmhCompare.OK, run(path("baseline.json"), path("baseline.json")));
        assertTrue(out().contains("**Result: no regression** (4 compared, 0 missing, 0 new)"), out());
        assertEquals("", err());
    }

    @Test
    void shouldReadWhatJmh137WritesAndPassAgainstItself() {
        // Two entries cut from a real smoke run (run-benchmarks.sh --smoke): NaN errors as strings, aux counters.
        assertEquals(JmhCompare.OK, run(path("jmh-1.37-smoke.json"), path("jmh-1.37-smoke.json")));
        assertTrue(row("pacing.PacingLatenessBenchmark.paceNextSend", "pacer=park, rate=1000")
                .contains("± ? us/op"), out());
        assertTrue(out().contains("**Result: no regression** (2 compared, 0 missing, 0 new)"), out());
    }

    @Test
    void shouldFailWithStatusTwoOnATimeRegression() {
        assertEquals(JmhCompare.REGRESSED, run(path("baseline.json"), path("current-regression.json")));
        String row = row("CodecBenchmark.encode", "mode=open");
        assertTrue(row.contains("100.0 ± 2.000 ns/op"), row);
        assertTrue(row.contains("130.0 ± 2.000 ns/op"), row);
        assertTrue(row.contains("+30.0 %"), row);
        assertTrue(row.contains("**REGRESSION**"), row);
        assertTrue(row("CodecBenchmark.encode", "mode=auth").contains("ok (within error)"));
        assertTrue(out().contains("**Result: 1 regression**"), out());
    }

    @Test
    void shouldListMissingAndNewBenchmarksWithoutFailingOnThem() {
        run(path("baseline.json"), path("current-regression.json"));
        assertTrue(out().contains("Missing from the current run (not a failure):\n- `RemovedBenchmark.old` avgt"), out());
        assertTrue(out().contains("New in the current run (not a failure):\n- `NewBenchmark.fresh` avgt"), out());
        assertTrue(out().contains("Benchmarks in `io.github.twping.jmh.sample`."), out());
    }

    @Test
    void shouldAcceptARegressionBelowAHigherThreshold() {
        assertEquals(JmhCompare.OK, run(path("baseline.json"), path("current-regression.json"), "--threshold", "50"));
        assertTrue(row("CodecBenchmark.encode", "mode=open").contains("ok (within threshold)"), out());
        assertEquals(JmhCompare.OK, run(path("baseline.json"), path("current-regression.json"), "--threshold=30%"));
    }

    @Test
    void shouldReportImprovementsInBothDirectionsWithoutFailing() {
        assertEquals(JmhCompare.OK, run(path("baseline.json"), path("current-improvement.json")));
        String avgt = row("CodecBenchmark.encode", "mode=open");
        assertTrue(avgt.contains("-30.0 %") && avgt.contains("| improved |"), avgt);
        String thrpt = row("SenderBenchmark.send", "");
        assertTrue(thrpt.contains("+30.0 %") && thrpt.contains("| improved |"), thrpt);
    }

    @Test
    void shouldTreatAChangeInsideTheErrorAsNoise() {
        // +15 % is above the threshold, but the intervals [95, 135] and [98, 102] overlap.
        assertEquals(JmhCompare.OK, run(path("baseline.json"), path("current-noise.json")));
        String row = row("CodecBenchmark.encode", "mode=open");
        assertTrue(row.contains("+15.0 %") && row.contains("ok (within error)"), row);
    }

    @Test
    void shouldTreatLowerThroughputAsARegression() {
        assertEquals(JmhCompare.REGRESSED, run(path("baseline.json"), path("current-throughput-drop.json")));
        String row = row("SenderBenchmark.send", "");
        assertTrue(row.contains("| thrpt |") && row.contains("-30.0 %") && row.contains("**REGRESSION**"), row);
    }

    @Test
    void shouldTreatHigherThroughputAsAnImprovementEvenWhenSwapped() {
        // Swapping the files turns the 30 % drop into a 43 % gain, which is not a failure for thrpt.
        assertEquals(JmhCompare.OK, run(path("current-throughput-drop.json"), path("baseline.json")));
        assertTrue(row("SenderBenchmark.send", "").contains("| improved |"), out());
    }

    @Test
    void shouldFlagAllocationThatAppearsWhereThereWasNone() {
        assertEquals(JmhCompare.REGRESSED, run(path("baseline.json"), path("current-alloc.json")));
        String open = row("CodecBenchmark.encode", "mode=open");
        assertTrue(open.contains("0.001 → 48.00") && open.contains("**ALLOC REGRESSION**"), open);
        // 0.0 -> 0.5 B/op stays below the 1 B/op floor: noise, not allocation.
        String auth = row("CodecBenchmark.encode", "mode=auth");
        assertFalse(auth.contains("ALLOC"), auth);
    }

    @Test
    void shouldConvertUnitsBeforeComparing() {
        // 0.130 us/op against 100 ns/op is a 30 % regression; 1e6 ops/s equals 1000 ops/ms.
        assertEquals(JmhCompare.REGRESSED, run(path("baseline.json"), path("current-other-unit.json")));
        assertTrue(row("CodecBenchmark.encode", "mode=open").contains("130.0 ± 2.000 ns/op"), out());
        assertTrue(row("SenderBenchmark.send", "").contains("ok (within error)"), out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"truncated.json", "not-an-array.json", "entry-without-primary-metric.json"})
    void shouldRejectAMalformedFileWithOneLineAndStatusOne(String fixture) {
        assertEquals(JmhCompare.USAGE_OR_INPUT_ERROR, run(path("baseline.json"), path(fixture)));
        String message = err().strip();
        assertTrue(message.startsWith("jmh-compare: " + path(fixture) + ": "), message);
        assertEquals(1, message.lines().count(), message);
        assertEquals("", out());
    }

    @Test
    void shouldRejectAMissingFile() {
        Path absent = fixture("baseline.json").resolveSibling("absent.json");
        assertEquals(JmhCompare.USAGE_OR_INPUT_ERROR, run(absent.toString(), path("baseline.json")));
        assertEquals("jmh-compare: " + absent + ": no such file", err().strip());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-5", "ten", "NaN", ""})
    void shouldRejectABadThreshold(String threshold) {
        assertEquals(JmhCompare.USAGE_OR_INPUT_ERROR,
                run(path("baseline.json"), path("baseline.json"), "--threshold", threshold));
        assertTrue(err().startsWith("jmh-compare: --threshold must be a number >= 0"), err());
    }

    @Test
    void shouldRejectAWrongNumberOfFiles() {
        assertEquals(JmhCompare.USAGE_OR_INPUT_ERROR, run(path("baseline.json")));
        assertTrue(err().contains("usage: jmh-compare BASELINE.json CURRENT.json [--threshold PCT]"), err());
    }
}
