package io.github.twping.session;

import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocketOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The options of every test socket, the one place they are built: the sender's test socket (twping's and the
 * agent's), the sending socket beside it ({@link SplitTestSocket#openSender}) and the reflector's socket
 * (twampd's sessions, the STAMP and TWAMP-Light reflector).
 *
 * <p>Buffer policy, one for all: a socket's receive and send buffers hold the datagrams of
 * {@value #STALL_SECONDS} s at the session's packet rate (a preemption or a compiler pause of the thread that
 * drains it costs no drop), counted at {@value #KERNEL_BYTES_PER_DATAGRAM} bytes of kernel memory per datagram
 * beyond the frame; at least {@value #MIN_BUFFER_BYTES} bytes and {@value #BUFFERED_FRAMES} frames, at most
 * {@value #MAX_BUFFER_BYTES}. A reflector does not know the sender's rate (RFC 5357 §3.5 carries no schedule),
 * so its sockets take {@link #REFLECTOR_BUFFER_BYTES}: 0.3 s of small packets at about 39,000 packets/s. The kernel
 * charges memory only for datagrams actually queued, and caps the request at {@code net.core.rmem_max} unless
 * the process has CAP_NET_ADMIN (docs/PERFORMANCE.md, "Throughput").
 */
public final class TestSocketOptions {
    /** IP TTL / hop limit of every test packet (RFC 5357 §4.1.2 and C twping/twampd: 255). */
    public static final int TTL = 255;
    /** The buffers of a reflector's socket (the policy above at an unknown rate). */
    public static final int REFLECTOR_BUFFER_BYTES = 16 << 20;
    /** Sender header + padding + reflector header + slack, the frame the buffers are sized for. */
    private static final int FRAME_OVERHEAD_BYTES = 48 + 112 + 128;
    private static final int MIN_BUFFER_BYTES = 4 << 20;
    private static final int MAX_BUFFER_BYTES = 256 << 20;
    private static final int BUFFERED_FRAMES = 64;
    /** Kernel memory a queued small datagram costs beyond its payload (sk_buff truesize on loopback, ~1 KB). */
    private static final int KERNEL_BYTES_PER_DATAGRAM = 1152;
    /** How long the receiver may be kept from its socket without a drop. */
    private static final double STALL_SECONDS = 0.3;

    private TestSocketOptions() {
    }

    /** The buffer size of a sender's sockets for {@code paddingBytes} at {@code packetsPerSecond} (the policy above). */
    public static int bufferBytes(int paddingBytes, double packetsPerSecond) {
        long perDatagram = KERNEL_BYTES_PER_DATAGRAM + FRAME_OVERHEAD_BYTES + (long) paddingBytes;
        double forRate = Double.isFinite(packetsPerSecond) && packetsPerSecond > 0
                ? perDatagram * packetsPerSecond * STALL_SECONDS : 0;
        long bytes = Math.max(Math.max(MIN_BUFFER_BYTES, perDatagram * BUFFERED_FRAMES),
                (long) Math.min(forRate, MAX_BUFFER_BYTES));
        return (int) Math.min(bytes, MAX_BUFFER_BYTES);
    }

    /**
     * A sender's test socket on {@code bind}: TTL {@value #TTL} with the received TTL reported, the buffers,
     * {@code tos} (0 leaves the system default), {@code device} (null: none), kernel RX timestamps and, with
     * {@code kernelSendStamps}, TX timestamps. The caller adds the port and what its sessions need besides.
     */
    public static UdpSocketOptions.Builder sender(InetAddress bind, int bufferBytes, int tos, String device,
                                                  boolean kernelSendStamps) {
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().bindAddress(bind).unicastTtl(TTL).receiveTtl(true)
                .receiveBufferBytes(bufferBytes).sendBufferBytes(bufferBytes)
                .timestamping(kernelSendStamps ? Timestamping.RX_TX_SOFTWARE : Timestamping.RX_SOFTWARE);
        return common(b, tos, device);
    }

    /** The sending socket beside a sender's test socket ({@link SplitTestSocket#openSender} adds the rest). */
    public static UdpSocketOptions.Builder splitSender(int bufferBytes, int tos, String device) {
        return common(UdpSocketOptions.builder().sendBufferBytes(bufferBytes).receiveBufferBytes(bufferBytes), tos,
                device);
    }

    /**
     * A reflector's socket bound on exactly {@code bind} (port 0 = ephemeral): TTL {@value #TTL} on replies,
     * received TTL and TOS, {@link #REFLECTOR_BUFFER_BYTES} buffers, kernel RX timestamps unless
     * {@code kernelRxStamps} is false (the receive time is then the clock's after the call, as C twampd does).
     */
    public static UdpSocketOptions.Builder reflector(InetSocketAddress bind, int tos, boolean kernelRxStamps) {
        UdpSocketOptions.Builder b = UdpSocketOptions.builder().bindAddress(bind.getAddress()).port(bind.getPort())
                .unicastTtl(TTL).receiveTtl(true).receiveTos(true)
                .receiveBufferBytes(REFLECTOR_BUFFER_BYTES).sendBufferBytes(REFLECTOR_BUFFER_BYTES)
                .timestamping(kernelRxStamps ? Timestamping.RX_SOFTWARE : Timestamping.NONE);
        return common(b, tos, null);
    }

    private static UdpSocketOptions.Builder common(UdpSocketOptions.Builder b, int tos, String device) {
        if (tos != 0) {
            b.tos(tos);
        }
        if (device != null) {
            b.bindToDevice(device);
        }
        return b;
    }
}
