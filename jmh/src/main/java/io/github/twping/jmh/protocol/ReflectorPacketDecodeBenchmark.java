package io.github.twping.jmh.protocol;

import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.TestPacketLayout;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.annotations.Mode;

/**
 * Cost of reading a reply the way the client's receiver does: every field of a Session-Reflector packet through
 * one {@link ReflectorPacket} flyweight bound to its {@link TestPacketLayout}, from a heap segment.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar ReflectorPacketDecode -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReflectorPacketDecodeBenchmark {
    /** Which reflector layout. */
    @Param({"UNAUTHENTICATED_REFLECTOR", "AUTHENTICATED_REFLECTOR"})
    public String layout;

    private ReflectorPacket reply;

    @Setup
    public void setUp() {
        TestPacketLayout l = "AUTHENTICATED_REFLECTOR".equals(layout)
                ? TestPacketLayout.AUTHENTICATED_REFLECTOR : TestPacketLayout.UNAUTHENTICATED_REFLECTOR;
        reply = new ReflectorPacket(l).wrap(MemorySegment.ofArray(new byte[l.length() + 64]));
        reply.clearMbz().sequenceNumber(7).timestampNtp(0xE8FE6F801F9ACFFAL).errorEstimate(1)
                .receiveTimestampNtp(0xE8FE6F801F9ACFF0L).senderSequenceNumber(7)
                .senderTimestampNtp(0xE8FE6F801F9ACF00L).senderErrorEstimate(1).senderTtl(255);
    }

    @Benchmark
    public long decodeAllFields() {
        ReflectorPacket r = reply;
        return r.sequenceNumber() + r.timestampNtp() + r.errorEstimate() + r.receiveTimestampNtp()
                + r.senderSequenceNumber() + r.senderTimestampNtp() + r.senderErrorEstimate() + r.senderTtl();
    }
}
