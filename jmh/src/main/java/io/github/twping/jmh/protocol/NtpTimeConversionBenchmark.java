package io.github.twping.jmh.protocol;

import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
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
 * Cost of taking a TWAMP timestamp: reading the wall clock as epoch nanoseconds and converting it to NTP,
 * against {@code System.nanoTime()} and the pure conversion.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar NtpTimeConversion -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class NtpTimeConversionBenchmark {
    private final WallClock clock = WallClock.system();
    private long epochNs = 1_700_000_000_123_456_789L;

    @Benchmark
    public long baselineNanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public long wallClockEpochNs() {
        return clock.nowEpochNs();
    }

    @Benchmark
    public long wallClockNtp() {
        return clock.nowNtp();
    }

    @Benchmark
    public long epochNanosToNtp() {
        return NtpTime.fromEpochNanos(epochNs++);
    }

    @Benchmark
    public long ntpToEpochNanos() {
        return NtpTime.toEpochNanos(epochNs++);
    }
}
