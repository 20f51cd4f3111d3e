package io.github.twping.jmh.pacing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PacingAccuracyRunnerTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return PacingAccuracyRunner.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void shouldPrintOneRowPerStrategyAndRate() {
        // 20 sends per cell at 1000-2000 pkt/s: a few tens of milliseconds in all.
        assertEquals(0, run("--runs", "2", "--seconds", "0.01", "--warmup-seconds", "0",
                "--rates", "1000,2000", "--pacers", "park,park-then-spin-10us"));
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("| Strategy | Rate (pkt/s) | p50 ns | p99 ns | p99.9 ns | max ns | CPU % of one core |"), table);
        for (String row : new String[] {"| park | 1000 | ", "| park | 2000 | ", "| park-then-spin-10us | 1000 | ",
                "| park-then-spin-10us | 2000 | "}) {
            assertEquals(1, table.lines().filter(line -> line.startsWith(row)).count(), row + " in\n" + table);
        }
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "--pacers;sleep;unknown pacer \"sleep\"",
            "--runs;many;--runs needs a number",
            "--runs;0;need 1 <= runs <= 100",
            "--rates;0;rates must be between 1 and 1000000",
            "--colour;red;unknown option --colour"})
    void shouldRejectBadArgumentsWithOneLine(String option, String value, String message) {
        assertEquals(1, run(option, value));
        String error = err.toString(StandardCharsets.UTF_8);
        assertTrue(error.contains(message), error);
        assertEquals(1, error.strip().lines().count(), error);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRejectAnOptionWithoutValue() {
        assertEquals(1, run("--runs"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--runs needs a value"));
    }

    @Test
    void shouldSummariseAsMedianWithLowestAndHighestRun() {
        assertEquals("20 (10–90)", PacingAccuracyRunner.summary(new double[] {90, 10, 20}, false));
        assertEquals("15.0 (10.0–20.0)", PacingAccuracyRunner.summary(new double[] {20, 10}, true));
        assertEquals("7", PacingAccuracyRunner.summary(new double[] {7}, false));
    }
}
