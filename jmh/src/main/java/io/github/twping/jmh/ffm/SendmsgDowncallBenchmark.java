package io.github.twping.jmh.ffm;

import io.github.twping.ffm.ReceivedPacket;
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
 * Cost of sending one 64-byte datagram over IPv4 loopback (the kernel delivers it into the receiver's queue
 * within the call): FFM sendto with the cached destination sockaddr vs {@link DatagramChannel#send}. An
 * untimed per-invocation tear-down drains the datagram so the receive queue never overflows;
 * {@code baseline} measures that harness alone.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -jar jmh/target/benchmarks.jar Sendmsg -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class SendmsgDowncallBenchmark {
    static final int PAYLOAD_BYTES = 64;

    /** The loopback receiver every variant sends to; drained after each invocation (untimed). */
    @State(Scope.Thread)
    public static class Receiver {
        final Arena arena = Arena.ofShared();
        final ReceivedPacket meta = new ReceivedPacket();
        UdpSocket socket;
        MemorySegment buffer;
        InetSocketAddress address;

        @Setup(Level.Trial)
        public void open() throws SocketException {
            socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).build());
            buffer = arena.allocate(2048);
            address = socket.localAddress();
        }

        @TearDown(Level.Invocation)
        public void drain() throws SocketException {
            while (socket.receive(buffer, meta, 0) >= 0) {
                // at most the one datagram of this invocation
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            socket.close();
            arena.close();
        }
    }

    @State(Scope.Thread)
    public static class FfmSender {
        final Arena arena = Arena.ofShared();
        UdpSocket socket;
        MemorySegment payload;

        @Setup(Level.Trial)
        public void open() throws SocketException {
            socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).build());
            payload = arena.allocate(PAYLOAD_BYTES);
        }

        @TearDown(Level.Trial)
        public void close() {
            socket.close();
            arena.close();
        }
    }

    @State(Scope.Thread)
    public static class NioSender {
        DatagramChannel channel;
        ByteBuffer payload;

        @Setup(Level.Trial)
        public void open() throws IOException {
            channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            payload = ByteBuffer.allocateDirect(PAYLOAD_BYTES);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            channel.close();
        }
    }

    /** The harness alone: nothing is sent, the tear-down finds the queue empty. */
    @Benchmark
    public int baseline(Receiver receiver) {
        return receiver.address.getPort();
    }

    @Benchmark
    public int ffmSend(FfmSender sender, Receiver receiver) throws SocketException {
        return sender.socket.send(sender.payload, PAYLOAD_BYTES, receiver.address);
    }

    @Benchmark
    public int nioSend(NioSender sender, Receiver receiver) throws IOException {
        sender.payload.clear();
        return sender.channel.send(sender.payload, receiver.address);
    }
}
