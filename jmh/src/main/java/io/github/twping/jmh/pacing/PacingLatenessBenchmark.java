package io.github.twping.jmh.pacing;

import io.github.twping.pacing.Pacer;
import io.github.twping.pacing.PacerSpecs;
import io.github.twping.pacing.SystemPacingClock;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Paced sends against absolute deadlines, one per operation, for each pacing strategy and rate.
 *
 * <p>The primary score is the time per operation, i.e. the achieved send interval: it stays at the
 * period (1000 / 100 / 20 µs) while the strategy keeps up. The lateness percentiles and the CPU share are
 * secondary metrics ({@code latenessP50Ns} ...; {@code cpuPct}); {@link PacingAccuracyRunner} prints the
 * same figures with repeated runs. Run: {@code jmh/run-benchmarks.sh PacingLatenessBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
public class PacingLatenessBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The strategy and rate under test, the recorder pacing with them, and what the measured iterations saw. */
    @State(Scope.Thread)
    public static class Pacing {
        @Param({"busy-spin", "park-then-spin-100us", "park-then-spin-50us", "park-then-spin-20us", "backoff-1000us", "park"})
        public String pacer;

        @Param({"1000", "10000", "50000"})
        public long rate;

        LatenessRecorder recorder;
        /** Lateness of every send of every measurement iteration so far. */
        final Histogram measuredLatenessNs = new Histogram(LatenessRecorder.HIGHEST_TRACKABLE_NS, 3);
        long measuredCpuNs;
        long measuredWallNs;
        /** 1 / number of forks: JMH also sums the counters over forks, so each fork reports its share of the mean. */
        double forkShare = 1.0;
        private boolean measuring;
        private long cpuStartNs;
        private long wallStartNs;

        @Setup(Level.Trial)
        public void createPacer(BenchmarkParams benchmark) {
            forkShare = 1.0 / Math.max(1, benchmark.getForks());
            Pacer created = PacerSpecs.create(pacer, SystemPacingClock.INSTANCE);
            if (created == null) {
                throw new IllegalArgumentException("unknown pacer " + pacer + "; accepted: " + PacerSpecs.accepted());
            }
            recorder = new LatenessRecorder(created, SystemPacingClock.INSTANCE, 1_000_000_000L / rate);
        }

        @Setup(Level.Iteration)
        public void startIteration(IterationParams iteration) {
            measuring = iteration.getType() == IterationType.MEASUREMENT;
            recorder.start();
            cpuStartNs = THREADS.getCurrentThreadCpuTime();
            wallStartNs = System.nanoTime();
        }

        @TearDown(Level.Iteration)
        public void stopIteration() {
            long wallNs = System.nanoTime() - wallStartNs;
            long cpuNs = THREADS.getCurrentThreadCpuTime() - cpuStartNs;
            if (measuring) {
                measuredLatenessNs.add(recorder.latenessNs());
                measuredCpuNs += cpuNs;
                measuredWallNs += wallNs;
            }
        }
    }

    /**
     * Secondary metrics, read by JMH after each iteration's tear-down and summed over the measurement
     * iterations. So that the sum is the figure over all measured sends (a percentile of the whole run, not
     * a sum of percentiles), each read returns the increment since the previous one, divided by the number
     * of forks (JMH sums over forks too, so the final score is the mean of the forks' figures). The
     * per-iteration lines JMH prints for these counters are therefore increments (0 during warm-up).
     * JMH gives a state that another state depends on its own instance, so the benchmark method hands
     * {@link Pacing} over instead.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Lateness {
        Pacing pacing;
        private final double[] reported = new double[5];

        private double increment(int metric, double total) {
            double delta = total - reported[metric];
            reported[metric] = total;
            return delta * pacing.forkShare;
        }

        public double latenessP50Ns() {
            return pacing == null ? 0 : increment(0, pacing.measuredLatenessNs.getValueAtPercentile(50.0));
        }

        public double latenessP99Ns() {
            return pacing == null ? 0 : increment(1, pacing.measuredLatenessNs.getValueAtPercentile(99.0));
        }

        public double latenessP999Ns() {
            return pacing == null ? 0 : increment(2, pacing.measuredLatenessNs.getValueAtPercentile(99.9));
        }

        public double latenessMaxNs() {
            return pacing == null ? 0 : increment(3, pacing.measuredLatenessNs.getMaxValue());
        }

        public double cpuPct() {
            if (pacing == null || pacing.measuredWallNs == 0) {
                return 0;
            }
            return increment(4, 100.0 * pacing.measuredCpuNs / pacing.measuredWallNs);
        }
    }

    @Benchmark
    public long paceNextSend(Pacing pacing, Lateness lateness) {
        lateness.pacing = pacing;
        return pacing.recorder.paceNext();
    }
}
