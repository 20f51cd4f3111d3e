package io.github.twping.jmh.protocol;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of computing the next inter-packet delay of the owamp schedule: exponential (AES counter-mode words and
 * Knuth Algorithm S) versus fixed (no random numbers).
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar SendScheduleNext -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SendScheduleNextBenchmark {
    @Param({"exponential", "fixed"})
    public String slot;

    private SendSchedule schedule;

    @Setup
    public void setUp() {
        byte[] sid = new byte[16];
        for (int i = 0; i < sid.length; i++) {
            sid[i] = (byte) (i + 1);
        }
        ScheduleSlot s = slot.equals("fixed") ? ScheduleSlot.fixedOffset(0x028F5C28L) : ScheduleSlot.DEFAULT;
        schedule = new SendSchedule(sid, new ScheduleSlot[] {s}, 0xFFFF_FFFFL);
    }

    @Benchmark
    public long nextDeltaNtp() {
        return schedule.nextDeltaNtp();
    }
}
