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
 * Cost of receiving one ready 64-byte datagram over IPv4 loopback: FFM recvmsg without metadata (source
 * address and a user-space clock read), FFM recvmsg with TTL, TOS and kernel RX timestamp cmsgs parsed, and
 * {@link DatagramChannel#receive}. An untimed per-invocation set-up sends the datagram (FFM sendto) so that
 * it is queued when the timed call starts; {@code baseline} measures that harness alone.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -jar jmh/target/benchmarks.jar Recvmsg -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RecvmsgDowncallBenchmark {
    static final int PAYLOAD_BYTES = 64;
    static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);

    /** A loopback sender, shared by all variants. */
    @State(Scope.Thread)
    public static class Sender {
        final Arena arena = Arena.ofShared();
        UdpSocket socket;
        MemorySegment payload;

        @Setup(Level.Trial)
        public void open() throws SocketException {
            socket = UdpSocket.open(UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress()).build());
            payload = arena.allocate(PAYLOAD_BYTES);
        }

        void sendTo(InetSocketAddress destination) throws SocketException {
            if (socket.send(payload, PAYLOAD_BYTES, destination) != PAYLOAD_BYTES) {
                throw new IllegalStateException("loopback send would block");
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            socket.close();
            arena.close();
        }
    }

    /** An FFM receiver; {@code metadata} asks for TTL, TOS and kernel RX timestamps. */
    public abstract static class FfmReceiver {
        final Arena arena = Arena.ofShared();
        final ReceivedPacket meta = new ReceivedPacket();
        UdpSocket socket;
        MemorySegment buffer;
        InetSocketAddress address;

        void open(boolean metadata) throws SocketException {
            UdpSocketOptions.Builder options = UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress());
            if (metadata) {
                options.receiveTtl(true).receiveTos(true).timestamping(Timestamping.RX_SOFTWARE);
            }
            socket = UdpSocket.open(options.build());
            buffer = arena.allocate(2048);
            address = socket.localAddress();
        }

        @Setup(Level.Invocation)
        public void queueOne(Sender sender) throws SocketException {
            sender.sendTo(address);
        }

        @TearDown(Level.Trial)
        public void close() {
            socket.close();
            arena.close();
        }
    }

    @State(Scope.Thread)
    public static class PlainReceiver extends FfmReceiver {
        @Setup(Level.Trial)
        public void open() throws SocketException {
            open(false);
        }
    }

    @State(Scope.Thread)
    public static class MetadataReceiver extends FfmReceiver {
        @Setup(Level.Trial)
        public void open() throws SocketException {
            open(true);
        }
    }

    @State(Scope.Thread)
    public static class NioReceiver {
        DatagramChannel channel;
        ByteBuffer buffer;
        InetSocketAddress address;

        @Setup(Level.Trial)
        public void open() throws IOException {
            channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            buffer = ByteBuffer.allocateDirect(2048);
            address = (InetSocketAddress) channel.getLocalAddress();
        }

        @Setup(Level.Invocation)
        public void queueOne(Sender sender) throws SocketException {
            sender.sendTo(address);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            channel.close();
        }
    }

    /** The harness alone: the untimed send of the set-up, then nothing is received (the socket drops extras). */
    @Benchmark
    public int baseline(PlainReceiver receiver) {
        return receiver.buffer.hashCode();
    }

    @Benchmark
    public int ffmReceive(PlainReceiver receiver) throws SocketException {
        return receiver.socket.receive(receiver.buffer, receiver.meta, TIMEOUT_NS);
    }

    @Benchmark
    public long ffmReceiveWithMetadata(MetadataReceiver receiver) throws SocketException {
        int n = receiver.socket.receive(receiver.buffer, receiver.meta, TIMEOUT_NS);
        return n + receiver.meta.ttl() + receiver.meta.tos() + receiver.meta.rxTimestampEpochNs();
    }

    @Benchmark
    public Object nioReceive(NioReceiver receiver) throws IOException {
        receiver.buffer.clear();
        return receiver.channel.receive(receiver.buffer);
    }
}
