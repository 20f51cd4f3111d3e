package io.github.twping.jmh.ffm;

import io.github.twping.ffm.SocketException;
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
 * Cost of sending one 64-byte datagram over IPv4 loopback: FFM sendto (destination sockaddr cached by the
 * identity of the InetSocketAddress) vs {@link DatagramChannel#send}. The destination is a sink whose full
 * receive queue drops the datagram, so each operation runs the whole send path and loopback stack without
 * needing a drain. {@code baseline} is an empty method.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -jar jmh/target/benchmarks.jar Sendmsg -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class SendmsgDowncallBenchmark {
    static final int PAYLOAD_BYTES = 64;

    private final Arena arena = Arena.ofShared();
    private UdpSocket ffmSender;
    private DatagramChannel nioSender;
    private LoopbackSink sink;
    private MemorySegment payload;
    private ByteBuffer nioPayload;
    private InetSocketAddress sinkAddress;

    @Setup(Level.Trial)
    public void open() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        ffmSender = UdpSocket.open(UdpSocketOptions.builder().bindAddress(loopback).build());
        nioSender = DatagramChannel.open(StandardProtocolFamily.INET);
        nioSender.bind(new InetSocketAddress(loopback, 0));
        sink = new LoopbackSink();
        payload = arena.allocate(PAYLOAD_BYTES);
        nioPayload = ByteBuffer.allocateDirect(PAYLOAD_BYTES);
        sinkAddress = sink.address();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        ffmSender.close();
        nioSender.close();
        sink.close();
        arena.close();
    }

    @Benchmark
    public int baseline() {
        return PAYLOAD_BYTES;
    }

    @Benchmark
    public int ffmSend() throws SocketException {
        return ffmSender.send(payload, PAYLOAD_BYTES, sinkAddress);
    }

    @Benchmark
    public int nioSend() throws IOException {
        nioPayload.clear();
        return nioSender.send(nioPayload, sinkAddress);
    }
}
