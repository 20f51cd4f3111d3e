package io.github.twping.ffm;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A UDP socket that sends from and receives into caller-owned memory, with per-packet kernel metadata
 * written into a reused {@link ReceivedPacket}.
 *
 * <p>Threads: one thread may send while another receives; TX timestamps may be drained by either (or a third).
 * {@link #wakeup()} and {@link #close()} may be called from any thread. Each of send, receive and
 * pollTxTimestamps must not be called by two threads at once.
 */
public interface UdpSocket extends AutoCloseable {
    /** receive: nothing arrived before the timeout (or nothing was ready for a non-blocking receive). */
    int TIMEOUT = -1;
    /** receive: the socket was woken for shutdown or is closed. */
    int CLOSED = -2;

    /** Opens the FFM implementation where available (and not forced off), else the NIO fallback. */
    static UdpSocket open(UdpSocketOptions options) throws SocketException {
        return UdpSockets.open(options);
    }

    /** The bound local address and port. */
    InetSocketAddress localAddress();

    /** True for the FFM implementation (kernel metadata available). */
    boolean isNative();

    /** What this socket really delivers (ttl, tos, rx/tx stamps). */
    Capabilities capabilities();

    /**
     * Sends {@code length} bytes from the start of {@code data} to {@code destination}. Sending again to the
     * same InetSocketAddress instance reuses its encoded sockaddr (no allocation).
     *
     * @return bytes sent, or 0 when the kernel would block (EAGAIN/ENOBUFS)
     * @throws SocketException on hard errors (the message names the call and the errno text)
     * @throws IndexOutOfBoundsException when {@code length} exceeds the segment
     */
    int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException;

    /**
     * Receives one datagram into {@code buffer} and its metadata into {@code meta}.
     *
     * @param timeoutNs how long to wait: negative = forever, 0 = do not block
     * @return the payload length, {@link #TIMEOUT} or {@link #CLOSED}
     */
    int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs) throws SocketException;

    /** Drains TX timestamps from the error queue (non-blocking); @return how many were delivered. */
    int pollTxTimestamps(TxTimestampHandler handler) throws SocketException;

    /** Packets sent so far: the OPT_ID the kernel gives the next send. Read it from the sending thread. */
    long sentPacketCount();

    /** Wakes a blocked receive, which then returns {@link #CLOSED}, as do all later receives (shutdown(2)). */
    void wakeup();

    /** Wakes the receiver and closes; native memory is released only after the receiver has left recvmsg. */
    @Override
    void close();
}
