package io.github.twping.jmh.ffm;

import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * What a reflector or receiver that fell behind pays per queued datagram: {@link #BACKLOG} 64-byte datagrams are
 * queued on a loopback socket with RX timestamps, TTL and TOS (as the reflector's socket), then taken either
 * with one {@code recvmsg} each or with {@code recvmmsg} in batches of {@code batch}. Scores are per datagram
 * (the sends are included and identical in both: on loopback sendto queues at the receiver before it returns).
 * {@code -prof gc} shows both allocate nothing.
 *
 * <p>Run: {@code jmh/run-benchmarks.sh BatchReceive -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class BatchReceiveBenchmark {
    static final int PAYLOAD_BYTES = 64;
    static final int BACKLOG = 32;
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);

    @Param({"8", "32"})
    public int batch;

    private final Arena arena = Arena.ofShared();
    private final ReceivedPacket meta = new ReceivedPacket();
    private UdpSocket sender;
    private UdpSocket receiver;
    private DatagramBatch slots;
    private MemorySegment payload;
    private MemorySegment buffer;
    private InetSocketAddress receiverAddress;

    @Setup(Level.Trial)
    public void open() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        sender = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).build());
        receiver = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).receiveTtl(true).receiveTos(true)
                .timestamping(Timestamping.RX_SOFTWARE).receiveBufferBytes(1 << 20).build());
        slots = new DatagramBatch(batch, PAYLOAD_BYTES);
        payload = arena.allocate(PAYLOAD_BYTES);
        buffer = arena.allocate(2048);
        receiverAddress = receiver.localAddress();
    }

    @TearDown(Level.Trial)
    public void close() {
        sender.close();
        receiver.close();
        slots.close();
        arena.close();
    }

    private void queueBacklog() throws SocketException {
        for (int i = 0; i < BACKLOG; i++) {
            sender.send(payload, PAYLOAD_BYTES, receiverAddress);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BACKLOG)
    public long recvmsgEach() throws SocketException {
        queueBacklog();
        long sum = 0;
        for (int i = 0; i < BACKLOG; i++) {
            sum += receiver.receive(buffer, meta, TIMEOUT_NS) + meta.rxTimestampEpochNs();
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(BACKLOG)
    public long recvmmsgBatches() throws SocketException {
        queueBacklog();
        long sum = 0;
        for (int got = 0; got < BACKLOG; ) {
            int n = receiver.receiveBatch(slots, TIMEOUT_NS);
            if (n <= 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                sum += slots.length(i) + slots.meta(i).rxTimestampEpochNs();
            }
            got += n;
        }
        return sum;
    }
}
