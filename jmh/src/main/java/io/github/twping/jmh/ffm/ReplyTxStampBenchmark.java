package io.github.twping.jmh.ffm;

import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;

/**
 * What a kernel TX stamp adds to a STAMP reflector's reply: {@link #BATCH} replies of the base size (44 octets) sent
 * to a {@link LoopbackSink} and, where stamps are queued, one batched error-queue read after them (the reflector's
 * {@code ReplyTxStamps}: a drain every 32 stamped replies). {@link #everySendStamped}: the socket option stamps
 * every send (the reflector before stamps were asked per reply); {@link #perSendSocketPlain}: a socket with
 * {@code txTimestampsPerSend}, a reply of a session without Follow-Up Telemetry (no stamp, no drain);
 * {@link #perSendSocketStamped}: the same socket, {@code sendStamped} (a session with Follow-Up Telemetry). Scores
 * are per reply; {@code -prof gc} shows none allocates.
 *
 * <p>Run: {@code jmh/run-benchmarks.sh ReplyTxStamp}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class ReplyTxStampBenchmark {
    static final int REPLY_BYTES = 44;
    static final int BATCH = 32;

    private final Arena arena = Arena.ofShared();
    private LoopbackSink sink;
    private UdpSocket everySend;
    private UdpSocket perSend;
    private MemorySegment reply;
    private long stampSum;
    private final TxTimestampHandler handler = (packetId, epochNs, hardware) -> stampSum += epochNs;

    @Setup(Level.Trial)
    public void open() throws IOException {
        sink = new LoopbackSink();
        everySend = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_TX_SOFTWARE).receiveBufferBytes(1 << 20).build());
        perSend = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_TX_SOFTWARE).txTimestampsPerSend(true).receiveBufferBytes(1 << 20)
                .build());
        if (!everySend.capabilities().txTimestamps() || !perSend.txTimestampsPerSend()) {
            throw new IllegalStateException("no kernel TX timestamps on these sockets: nothing to measure");
        }
        reply = arena.allocate(REPLY_BYTES);
    }

    @TearDown(Level.Trial)
    public void close() {
        everySend.close();
        perSend.close();
        sink.close();
        arena.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int everySendStamped() throws SocketException {
        for (int i = 0; i < BATCH; i++) {
            everySend.send(reply, REPLY_BYTES, sink.address());
        }
        return everySend.pollTxTimestampsBatched(handler);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int perSendSocketPlain() throws SocketException {
        int sent = 0;
        for (int i = 0; i < BATCH; i++) {
            sent += perSend.send(reply, REPLY_BYTES, sink.address());
        }
        return sent;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int perSendSocketStamped() throws SocketException {
        for (int i = 0; i < BATCH; i++) {
            perSend.sendStamped(reply, REPLY_BYTES, sink.address());
        }
        return perSend.pollTxTimestampsBatched(handler);
    }
}
