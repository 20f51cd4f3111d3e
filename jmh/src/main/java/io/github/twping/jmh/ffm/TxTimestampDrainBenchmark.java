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
 * What the client's receiver pays per kernel TX timestamp at a high rate: {@link #BACKLOG} datagrams are sent
 * from a socket with software TX timestamping to a {@link LoopbackSink}, then their stamps are drained from the
 * error queue either with one {@code recvmsg(MSG_ERRQUEUE)} each ({@link UdpSocket#pollTxTimestamps}) or 32 per
 * {@code recvmmsg} ({@link UdpSocket#pollTxTimestampsBatched}, what {@code ReplyReceiver} uses). Scores are per
 * stamp, the sends included and identical in both. {@code -prof gc} shows both allocate nothing.
 *
 * <p>Run: {@code jmh/run-benchmarks.sh TxTimestampDrain -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class TxTimestampDrainBenchmark {
    static final int PAYLOAD_BYTES = 64;
    static final int BACKLOG = 64;

    private final Arena arena = Arena.ofShared();
    private LoopbackSink sink;
    private UdpSocket sender;
    private MemorySegment payload;
    private long stampSum;
    private final TxTimestampHandler handler = (packetId, epochNs, hardware) -> stampSum += epochNs;

    @Setup(Level.Trial)
    public void open() throws IOException {
        sink = new LoopbackSink();
        sender = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_TX_SOFTWARE).receiveBufferBytes(1 << 20).build());
        if (!sender.capabilities().txTimestamps()) {
            throw new IllegalStateException("no kernel TX timestamps on this socket: nothing to measure");
        }
        payload = arena.allocate(PAYLOAD_BYTES);
    }

    @TearDown(Level.Trial)
    public void close() {
        sender.close();
        sink.close();
        arena.close();
    }

    private void sendBacklog() throws SocketException {
        for (int i = 0; i < BACKLOG; i++) {
            sender.send(payload, PAYLOAD_BYTES, sink.address());
        }
    }

    @Benchmark
    @OperationsPerInvocation(BACKLOG)
    public int recvmsgEach() throws SocketException {
        sendBacklog();
        return sender.pollTxTimestamps(handler);
    }

    @Benchmark
    @OperationsPerInvocation(BACKLOG)
    public int recvmmsgBatches() throws SocketException {
        sendBacklog();
        return sender.pollTxTimestampsBatched(handler);
    }
}
