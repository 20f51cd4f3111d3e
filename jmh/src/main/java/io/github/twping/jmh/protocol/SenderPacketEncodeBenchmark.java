package io.github.twping.jmh.protocol;

import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.annotations.Mode;

/**
 * Cost of writing the fields of a TWAMP-Test sender packet through the flyweights into a native segment.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar SenderPacketEncode -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SenderPacketEncodeBenchmark {
    private final SenderPacket sender = new SenderPacket(TestPacketLayout.UNAUTHENTICATED_SENDER);
    private final SenderPacket authSender = new SenderPacket(TestPacketLayout.AUTHENTICATED_SENDER);
    private MemorySegment segment;
    private long sequenceNumber;
    private long timestampNtp = 0xE8FE6F801F9ACFFAL;

    @Setup
    public void setUp() {
        segment = Arena.ofAuto().allocate(TestPacketLayout.AUTHENTICATED_SENDER.packetLength(64), 8);
    }

    @Benchmark
    public MemorySegment baseline() {
        return segment;
    }

    @Benchmark
    public MemorySegment encodeUnauthenticated() {
        sender.wrap(segment).sequenceNumber(sequenceNumber++).timestampNtp(timestampNtp++).errorEstimate(0x0001);
        return segment;
    }

    @Benchmark
    public MemorySegment encodeAuthenticatedLayout() {
        authSender.wrap(segment).clearMbz().sequenceNumber(sequenceNumber++).timestampNtp(timestampNtp++)
            .errorEstimate(0x0001);
        return segment;
    }
}
