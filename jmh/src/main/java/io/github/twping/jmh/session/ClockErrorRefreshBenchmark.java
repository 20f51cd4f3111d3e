package io.github.twping.jmh.session;

import io.github.twping.ffm.ClockStatus;
import io.github.twping.ffm.ClockStatusReader;
import io.github.twping.session.ClockErrorEstimate;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The once-a-second clock-state read of the client's receiver and the reflector
 * ({@code ClockErrorEstimate.refresh()}: one {@code ntp_adjtime} through a reused {@link ClockStatusReader}),
 * against the one-shot {@link ClockStatus#read()} the CLI uses, which allocates an arena, its segments and
 * the snapshot. {@code -prof gc} shows the allocation ({@code gc.alloc.rate.norm}, bytes per call).
 *
 * <p>Run: {@code jmh/run-benchmarks.sh ClockErrorRefresh}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class ClockErrorRefreshBenchmark {
    private final ClockErrorEstimate estimate = ClockErrorEstimate.fromKernel();
    private final ClockStatusReader reader = new ClockStatusReader();

    /** What the receiver and the reflector do once a second. */
    @Benchmark
    public int refreshEstimate() {
        estimate.refresh();
        return estimate.field();
    }

    /** The reusable reader alone. */
    @Benchmark
    public boolean readerRead() {
        return reader.read() && reader.synchronised();
    }

    /** The one-shot read (start-up clock warnings of the CLI). */
    @Benchmark
    public ClockStatus oneShotRead() {
        return ClockStatus.read();
    }
}
