package io.github.twping.jmh.ffm;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * What {@code Linker.Option.captureCallState("errno")} (used by every failing-capable call of ffm-sockets)
 * adds to a downcall: {@code getppid()} (a cheap syscall) linked with and without errno capture, against an
 * empty baseline.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -jar jmh/target/benchmarks.jar ErrnoCapture -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class ErrnoCaptureOverheadBenchmark {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MemorySegment GETPPID = LINKER.defaultLookup().findOrThrow("getppid");
    private static final MethodHandle PLAIN = LINKER.downcallHandle(GETPPID, FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle CAPTURING = LINKER.downcallHandle(GETPPID, FunctionDescriptor.of(JAVA_INT),
            Linker.Option.captureCallState("errno"));

    private Arena arena;
    private MemorySegment callState;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofConfined();
        callState = arena.allocate(Linker.Option.captureStateLayout());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public int baseline() {
        return 1;
    }

    @Benchmark
    public int withoutErrnoCapture() throws Throwable {
        return (int) PLAIN.invokeExact();
    }

    @Benchmark
    public int withErrnoCapture() throws Throwable {
        return (int) CAPTURING.invokeExact(callState);
    }
}
