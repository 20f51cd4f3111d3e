package io.github.twping.jmh.pacing;

import io.github.twping.pacing.PacerSpecs;
import io.github.twping.pacing.SystemPacingClock;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.HdrHistogram.Histogram;

/**
 * Measures how late each pacing strategy sends against absolute deadlines, and the CPU it burns, and
 * prints a Markdown table; the custom runner behind the pacing numbers in docs/PERFORMANCE.md.
 *
 * <pre>
 * jmh/run-benchmarks.sh --pacing-accuracy [--runs N] [--seconds S] [--rates 1000,10000,50000] [--pacers busy-spin,park,...]
 * </pre>
 *
 * <p>Each (strategy, rate) is warmed up once, then measured {@code runs} times for {@code seconds} each;
 * the runs are interleaved across strategies so that machine noise spreads over all of them. A cell shows
 * the median over the runs and, in brackets, the lowest and highest run.
 */
public final class PacingAccuracyRunner {
    private static final String PROG = "PacingAccuracyRunner";
    private static final String USAGE = "usage: " + PROG
            + " [--runs N] [--seconds S] [--warmup-seconds S] [--rates R1,R2,...] [--pacers P1,P2,...]";
    private static final double[] PERCENTILES = {50.0, 99.0, 99.9, 100.0};

    private final int runs;
    private final double seconds;
    private final double warmupSeconds;
    private final long[] rates;
    private final List<String> pacers;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    private PacingAccuracyRunner(int runs, double seconds, double warmupSeconds, long[] rates, List<String> pacers) {
        this.runs = runs;
        this.seconds = seconds;
        this.warmupSeconds = warmupSeconds;
        this.rates = rates;
        this.pacers = pacers;
    }

    /**
     * Runs the measurement and prints the table.
     *
     * @param args see the class comment.
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Parses the arguments, measures and prints.
     *
     * @return the exit status: 0, or 1 on bad arguments (one line on {@code err}).
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        int runs = 5;
        double seconds = 1.0;
        double warmupSeconds = 0.3;
        long[] rates = {1_000, 10_000, 50_000};
        List<String> pacers = PacerSpecs.DEFAULTS;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) {
                err.println(PROG + ": " + (option.startsWith("--") ? option + " needs a value; " : "unexpected " + option + "; ") + USAGE);
                return 1;
            }
            String value = args[++i];
            try {
                switch (option) {
                    case "--runs" -> runs = Integer.parseInt(value);
                    case "--seconds" -> seconds = Double.parseDouble(value);
                    case "--warmup-seconds" -> warmupSeconds = Double.parseDouble(value);
                    case "--rates" -> rates = Arrays.stream(value.split(",")).mapToLong(Long::parseLong).toArray();
                    case "--pacers" -> pacers = List.of(value.split(","));
                    default -> {
                        err.println(PROG + ": unknown option " + option + "; " + USAGE);
                        return 1;
                    }
                }
            } catch (NumberFormatException e) {
                err.println(PROG + ": " + option + " needs a number, got \"" + value + "\"");
                return 1;
            }
        }
        if (runs < 1 || runs > 100 || !(seconds > 0 && seconds <= 600) || !(warmupSeconds >= 0 && warmupSeconds <= 60)) {
            err.println(PROG + ": need 1 <= runs <= 100, 0 < seconds <= 600, 0 <= warmup-seconds <= 60");
            return 1;
        }
        for (long rate : rates) {
            if (rate < 1 || rate > 1_000_000) {
                err.println(PROG + ": rates must be between 1 and 1000000 packets/s, got " + rate);
                return 1;
            }
        }
        for (String pacer : pacers) {
            if (PacerSpecs.create(pacer, SystemPacingClock.INSTANCE) == null) {
                err.println(PROG + ": unknown pacer \"" + pacer + "\"; accepted: " + PacerSpecs.accepted());
                return 1;
            }
        }
        new PacingAccuracyRunner(runs, seconds, warmupSeconds, rates, pacers).measure(out);
        return 0;
    }

    private void measure(PrintStream out) {
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        int cells = pacers.size() * rates.length;
        // samples[cell][run][metric]: p50, p99, p99.9, max (ns), CPU %.
        double[][][] samples = new double[cells][runs][PERCENTILES.length + 1];
        for (int cell = 0; cell < cells; cell++) {
            measureOnce(cell, warmupSeconds, null);
        }
        for (int run = 0; run < runs; run++) {
            for (int cell = 0; cell < cells; cell++) {
                measureOnce(cell, seconds, samples[cell][run]);
            }
        }
        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        printTable(out, samples, loadBefore, loadAfter);
    }

    private void measureOnce(int cell, double durationSeconds, double[] sample) {
        String spec = pacers.get(cell / rates.length);
        long rate = rates[cell % rates.length];
        long sends = Math.max(1, Math.round(durationSeconds * rate));
        LatenessRecorder recorder = new LatenessRecorder(PacerSpecs.create(spec, SystemPacingClock.INSTANCE),
                SystemPacingClock.INSTANCE, 1_000_000_000L / rate);
        long cpuStartNs = threads.getCurrentThreadCpuTime();
        long wallStartNs = System.nanoTime();
        recorder.paceAll(sends);
        long wallNs = System.nanoTime() - wallStartNs;
        long cpuNs = threads.getCurrentThreadCpuTime() - cpuStartNs;
        if (sample != null) {
            Histogram histogram = recorder.latenessNs();
            for (int i = 0; i < PERCENTILES.length; i++) {
                sample[i] = PERCENTILES[i] == 100.0 ? histogram.getMaxValue() : histogram.getValueAtPercentile(PERCENTILES[i]);
            }
            sample[PERCENTILES.length] = cpuStartNs < 0 ? Double.NaN : 100.0 * cpuNs / wallNs;
        }
    }

    private void printTable(PrintStream out, double[][][] samples, double loadBefore, double loadAfter) {
        out.printf(Locale.ROOT, "Pacing lateness against absolute deadlines: median of %d run(s) of %s s (lowest-highest run); "
                + "JDK %s, %d CPUs, 1-minute load average %.1f before and %.1f after.%n%n", runs, stripZeros(seconds),
                Runtime.version(), Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter);
        out.println("| Strategy | Rate (pkt/s) | p50 ns | p99 ns | p99.9 ns | max ns | CPU % of one core |");
        out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (int cell = 0; cell < samples.length; cell++) {
            StringBuilder row = new StringBuilder();
            row.append("| ").append(pacers.get(cell / rates.length)).append(" | ").append(rates[cell % rates.length]);
            for (int metric = 0; metric <= PERCENTILES.length; metric++) {
                double[] values = new double[runs];
                for (int run = 0; run < runs; run++) {
                    values[run] = samples[cell][run][metric];
                }
                row.append(" | ").append(summary(values, metric == PERCENTILES.length));
            }
            out.println(row.append(" |"));
        }
    }

    /** Median, then lowest and highest run; CPU with one decimal, nanoseconds as integers. */
    static String summary(double[] values, boolean percent) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        String format = percent ? "%.1f" : "%.0f";
        String medianText = String.format(Locale.ROOT, format, median);
        if (n == 1) {
            return medianText;
        }
        return medianText + String.format(Locale.ROOT, " (" + format + "–" + format + ")", sorted[0], sorted[n - 1]);
    }

    private static String stripZeros(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}
