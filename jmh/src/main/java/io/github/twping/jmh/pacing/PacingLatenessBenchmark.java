package io.github.twping.jmh.pacing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;

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

    /** The strategy and rate under test, the recorder pacing with them, and the CPU use of each iteration. */
    @State(Scope.Thread)
    public static class Pacing {
        @Param({"busy-spin", "park-then-spin-100us", "park-then-spin-50us", "park-then-spin-20us", "backoff-1000us", "park"})
        public String pacer;

        @Param({"1000", "10000", "50000"})
        public long rate;

        LatenessRecorder recorder;
        private long cpuStartNs;
        private long wallStartNs;
        double cpuPct = Double.NaN;

        @Setup(Level.Trial)
        public void createPacer() {
            Pacer created = PacerSpecs.create(pacer, SystemPacingClock.INSTANCE);
            if (created == null) {
                throw new IllegalArgumentException("unknown pacer " + pacer + "; accepted: " + PacerSpecs.accepted());
            }
            recorder = new LatenessRecorder(created, SystemPacingClock.INSTANCE, 1_000_000_000L / rate);
        }

        @Setup(Level.Iteration)
        public void startIteration() {
            recorder.start();
            cpuStartNs = THREADS.getCurrentThreadCpuTime();
            wallStartNs = System.nanoTime();
        }

        @TearDown(Level.Iteration)
        public void stopIteration() {
            long wallNs = System.nanoTime() - wallStartNs;
            cpuPct = 100.0 * (THREADS.getCurrentThreadCpuTime() - cpuStartNs) / wallNs;
        }
    }

    /**
     * Secondary metrics of one iteration, read by JMH after the iteration's tear-down. JMH gives a state that
     * another state depends on its own instance, so the benchmark method hands over {@link Pacing} instead.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Lateness {
        Pacing pacing;

        public double latenessP50Ns() {
            return pacing == null ? Double.NaN : pacing.recorder.latenessNs().getValueAtPercentile(50.0);
        }

        public double latenessP99Ns() {
            return pacing == null ? Double.NaN : pacing.recorder.latenessNs().getValueAtPercentile(99.0);
        }

        public double latenessP999Ns() {
            return pacing == null ? Double.NaN : pacing.recorder.latenessNs().getValueAtPercentile(99.9);
        }

        public double latenessMaxNs() {
            return pacing == null ? Double.NaN : pacing.recorder.latenessNs().getMaxValue();
        }

        public double cpuPct() {
            return pacing == null ? Double.NaN : pacing.cpuPct;
        }
    }

    @Benchmark
    public long paceNextSend(Pacing pacing, Lateness lateness) {
        lateness.pacing = pacing;
        return pacing.recorder.paceNext();
    }
}
