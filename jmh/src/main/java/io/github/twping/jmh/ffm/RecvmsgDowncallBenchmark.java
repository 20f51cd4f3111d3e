package io.github.twping.jmh.ffm;

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
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

/**
 * Cost of receiving a ready 64-byte datagram over IPv4 loopback. Each operation sends the datagram with FFM
 * sendto (identical in every variant; on loopback it is queued at the receiver before sendto returns) and then
 * receives it: FFM recvmsg without metadata (source address, user-space clock read), FFM recvmsg with TTL,
 * TOS and kernel RX timestamp cmsgs parsed, or {@link DatagramChannel#receive}. {@code baseline} is the send
 * half alone (to a sink whose full queue drops it), so receive cost ~ variant - baseline.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -jar jmh/target/benchmarks.jar Recvmsg -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class RecvmsgDowncallBenchmark {
    static final int PAYLOAD_BYTES = 64;
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);

    private final Arena arena = Arena.ofShared();
    private final ReceivedPacket meta = new ReceivedPacket();
    private UdpSocket sender;
    private UdpSocket plainReceiver;
    private UdpSocket metadataReceiver;
    private DatagramChannel nioReceiver;
    private LoopbackSink sink;
    private MemorySegment payload;
    private MemorySegment buffer;
    private ByteBuffer nioBuffer;
    private InetSocketAddress plainAddress;
    private InetSocketAddress metadataAddress;
    private InetSocketAddress nioAddress;
    private InetSocketAddress sinkAddress;

    @Setup(Level.Trial)
    public void open() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        sender = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).build());
        plainReceiver = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).build());
        metadataReceiver = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback)
                .receiveTtl(true).receiveTos(true).timestamping(Timestamping.RX_SOFTWARE).build());
        nioReceiver = DatagramChannel.open(StandardProtocolFamily.INET);
        nioReceiver.bind(new InetSocketAddress(loopback, 0));
        sink = new LoopbackSink();
        payload = arena.allocate(PAYLOAD_BYTES);
        buffer = arena.allocate(2048);
        nioBuffer = ByteBuffer.allocateDirect(2048);
        plainAddress = plainReceiver.localAddress();
        metadataAddress = metadataReceiver.localAddress();
        nioAddress = (InetSocketAddress) nioReceiver.getLocalAddress();
        sinkAddress = sink.address();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        sender.close();
        plainReceiver.close();
        metadataReceiver.close();
        nioReceiver.close();
        sink.close();
        arena.close();
    }

    /** The send half alone: the datagram is dropped at the sink's full queue. */
    @Benchmark
    public int baseline() throws SocketException {
        return sender.send(payload, PAYLOAD_BYTES, sinkAddress);
    }

    @Benchmark
    public int ffmReceive() throws SocketException {
        sender.send(payload, PAYLOAD_BYTES, plainAddress);
        return plainReceiver.receive(buffer, meta, TIMEOUT_NS);
    }

    @Benchmark
    public long ffmReceiveWithMetadata() throws SocketException {
        sender.send(payload, PAYLOAD_BYTES, metadataAddress);
        int n = metadataReceiver.receive(buffer, meta, TIMEOUT_NS);
        return n + meta.ttl() + meta.tos() + meta.rxTimestampEpochNs();
    }

    @Benchmark
    public Object nioReceive() throws IOException {
        sender.send(payload, PAYLOAD_BYTES, nioAddress);
        nioBuffer.clear();
        return nioReceiver.receive(nioBuffer);
    }
}
