package io.github.twping.client;

import java.net.InetAddress;
import java.security.SecureRandom;

import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.session.SplitTestSocket;
import io.github.twping.schedule.StartTimes;
import java.net.InetSocketAddress;

/**
 * The client's test socket (RFC 5357 §3.5): bound to the control connection's local address on a port of
 * {@code -P}, TTL 255 with the received TTL reported, kernel RX and TX timestamps, {@code -D} as the TOS byte,
 * {@code -B} as the bound device.
 */
final class TestSocketSetup {
    /** Sender header + padding + reflector header + slack, the frame the buffers are sized for. */
    private static final int FRAME_OVERHEAD_BYTES = 48 + 112 + 128;
    private static final int MIN_BUFFER_BYTES = 4 << 20;
    private static final int MAX_BUFFER_BYTES = 256 << 20;
    private static final int BUFFERED_FRAMES = 64;
    /** Kernel memory a queued small datagram costs beyond its payload (sk_buff truesize on loopback, ~1 KB). */
    private static final int KERNEL_BYTES_PER_DATAGRAM = 1152;
    /** How long the receiver may be kept from its socket (a preemption, a compiler pause) without a drop. */
    private static final double STALL_SECONDS = 0.3;

    private TestSocketSetup() {
    }

    static UdpSocket open(InetAddress localAddress, TwpingOptions options) throws SocketException {
        TwpingOptions.Test test = options.test();
        int low = test.portRange().low();
        int high = test.portRange().high();
        int first = test.portRange().isEphemeral() ? 0 : test.portRange().firstCandidate(new SecureRandom().nextInt());
        int buffer = bufferBytes(test.paddingBytes(), StartTimes.packetRate(test.scheduleSlots()));
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().bindAddress(localAddress)
                .portRange(low, high, first).unicastTtl(255).receiveTtl(true)
                .receiveBufferBytes(buffer).sendBufferBytes(buffer)
                .receiveTos(true).reusePort(options.extras().kernelSendStamps()) // for the sending socket, below
                .timestamping(options.extras().kernelSendStamps()
                        ? Timestamping.RX_TX_SOFTWARE : Timestamping.RX_SOFTWARE); // no TX stamps queued unread
        if (tos(options) != 0) {
            b.tos(tos(options));
        }
        if (options.connection().bindInterface() != null) {
            b.bindToDevice(options.connection().bindInterface());
        }
        return UdpSocket.open(b.build());
    }

    /**
     * With kernel TX stamps on the FFM socket: a second socket for sending on the same port
     * ({@link SplitTestSocket#openSender}, with {@code -D}, {@code -B} and the buffers of the test socket), and
     * {@code socket} connected to the reflector (docs/CLIENT.md, "Two sockets"); null when that is not possible or
     * not wanted ({@code --send-stamp user}), and one socket then sends and receives.
     */
    static UdpSocket openSplitSender(UdpSocket socket, InetSocketAddress reflector, TwpingOptions options) {
        if (!options.extras().kernelSendStamps()) {
            return null;
        }
        TwpingOptions.Test test = options.test();
        int buffer = bufferBytes(test.paddingBytes(), StartTimes.packetRate(test.scheduleSlots()));
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().sendBufferBytes(buffer).receiveBufferBytes(buffer);
        if (tos(options) != 0) {
            b.tos(tos(options));
        }
        if (options.connection().bindInterface() != null) {
            b.bindToDevice(options.connection().bindInterface());
        }
        return SplitTestSocket.openSender(socket, reflector, b);
    }

    /** The TOS byte of the test packets: {@code -D} as DSCP, {@code --ecn} (STAMP, TWAMP-Light) as ECN. */
    static int tos(TwpingOptions options) {
        return options.test().dscp() << 2 | options.stamp().ecn();
    }

    /**
     * Receive and send buffer size for a session: the replies of {@value #STALL_SECONDS} s at the schedule's mean
     * rate, at least {@value #MIN_BUFFER_BYTES} bytes and 64 frames, at most {@value #MAX_BUFFER_BYTES}. The kernel
     * caps it at net.core.rmem_max unless the process has CAP_NET_ADMIN (docs/PERFORMANCE.md, "Throughput").
     */
    static int bufferBytes(int paddingBytes, double packetsPerSecond) {
        long perDatagram = KERNEL_BYTES_PER_DATAGRAM + FRAME_OVERHEAD_BYTES + (long) paddingBytes;
        double forRate = Double.isFinite(packetsPerSecond) && packetsPerSecond > 0
                ? perDatagram * packetsPerSecond * STALL_SECONDS : 0;
        long bytes = Math.max(Math.max(MIN_BUFFER_BYTES, perDatagram * BUFFERED_FRAMES), (long) Math.min(forRate, MAX_BUFFER_BYTES));
        return (int) Math.min(bytes, MAX_BUFFER_BYTES);
    }
}
