package io.github.twping.testing.perf;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The floor under our RTT: a minimal blocking UDP ping-pong on 127.0.0.1 over the same FFM sockets
 * (no timestamping, no TWAMP, no data file). The pinging thread sends and blocks in receive; an echo
 * thread answers. RTT is {@code System.nanoTime()} after the receive minus before the send.
 */
public final class PingPongBaseline {
    private static final int PACKET_BYTES = 41 + 27;
    private static final int BUFFER_BYTES = 2048;
    private static final long RECEIVE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long ECHO_POLL_NS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * Result of a baseline run.
     *
     * @param sent packets sent
     * @param lost packets without a reply within 1 s
     * @param rtt  round-trip times
     * @param wallNs wall time of the run
     */
    public record Result(long sent, long lost, RttStatistics rtt, long wallNs) {
    }

    private PingPongBaseline() {
    }

    /**
     * Sends {@code count} pings paced at {@code ratePps} (parking to each absolute deadline), or fewer when
     * {@code deadlineNs} of wall time passes first.
     */
    public static Result run(double ratePps, long count, long deadlineNs, boolean forceNio)
            throws SocketException, InterruptedException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        UdpSocketOptions options = UdpSocketOptions.builder().bindAddress(loopback)
                .timestamping(Timestamping.NONE).forceNio(forceNio).build();
        try (UdpSocket pinger = UdpSocket.open(options); UdpSocket echo = UdpSocket.open(options);
             Arena arena = Arena.ofConfined()) {
            AtomicBoolean stop = new AtomicBoolean();
            InetSocketAddress pingerAddress = pinger.localAddress();
            Thread echoThread = Thread.ofPlatform().name("baseline-echo").daemon(true)
                    .start(() -> echoLoop(echo, pingerAddress, stop));
            try {
                return pingLoop(pinger, echo.localAddress(), arena, ratePps, count, deadlineNs);
            } finally {
                stop.set(true);
                echo.wakeup();
                echoThread.join(5_000);
            }
        }
    }

    private static Result pingLoop(UdpSocket pinger, InetSocketAddress echoAddress, Arena arena, double ratePps,
                                   long count, long deadlineNs) throws SocketException {
        MemorySegment out = arena.allocate(BUFFER_BYTES);
        MemorySegment in = arena.allocate(BUFFER_BYTES);
        ReceivedPacket meta = new ReceivedPacket();
        RttStatistics rtt = new RttStatistics();
        long periodNs = Math.round(1e9 / ratePps);
        long start = System.nanoTime();
        long end = start + deadlineNs;
        long sent = 0;
        long lost = 0;
        for (long seq = 0; seq < count && System.nanoTime() - end < 0; seq++) {
            long due = start + seq * periodNs;
            for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            out.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
            long t0 = System.nanoTime();
            if (pinger.send(out, PACKET_BYTES, echoAddress) <= 0) {
                lost++;
                sent++;
                continue;
            }
            sent++;
            if (awaitReply(pinger, in, meta, seq, t0 + RECEIVE_TIMEOUT_NS)) {
                rtt.record(System.nanoTime() - t0);
            } else {
                lost++;
            }
        }
        return new Result(sent, lost, rtt, System.nanoTime() - start);
    }

    /** Receives until the reply carrying {@code seq} arrives (older replies are skipped) or the deadline. */
    private static boolean awaitReply(UdpSocket socket, MemorySegment in, ReceivedPacket meta, long seq,
                                      long deadline) throws SocketException {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            int n = socket.receive(in, meta, left);
            if (n == UdpSocket.CLOSED) {
                return false;
            }
            if (n >= Long.BYTES && in.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) == seq) {
                return true;
            }
        }
        return false;
    }

    private static void echoLoop(UdpSocket echo, InetSocketAddress pinger, AtomicBoolean stop) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(BUFFER_BYTES);
            ReceivedPacket meta = new ReceivedPacket();
            while (!stop.get()) {
                int n = echo.receive(buffer, meta, ECHO_POLL_NS);
                if (n == UdpSocket.CLOSED) {
                    return;
                }
                if (n > 0) {
                    echo.send(buffer, n, pinger);
                }
            }
        } catch (SocketException e) {
            if (!stop.get()) {
                System.err.println("baseline echo: " + e.getMessage());
            }
        }
    }
}
