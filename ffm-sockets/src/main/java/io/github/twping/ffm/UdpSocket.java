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
 *
 * <p>Memory: the caller's segments (a send's data, a receive's buffer, a {@link DatagramBatch}) must stay open
 * until the call that uses them has returned. The FFM implementation hands their addresses to the kernel, and
 * closing their arena during the call would let the kernel read or write freed memory.
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
     * Connects the socket to {@code peer} (connect(2)): the kernel then delivers only the peer's datagrams to it,
     * and prefers it over an unconnected socket bound to the same port ({@link UdpSocketOptions#reusePort}). An
     * ICMP error from the peer ends a receive as {@link #TIMEOUT}. Sends to other destinations still work.
     *
     * @throws SocketException when the kernel refuses, or this implementation cannot connect
     */
    default void connect(InetSocketAddress peer) throws SocketException {
        throw new SocketException("connect", Errno.EOPNOTSUPP, "not supported by this socket", null);
    }

    /**
     * Sets the TOS byte (IPv4) / traffic class (IPv6) of later sends; call it from the sending thread, between
     * sends. One system call: change it only when the value changes.
     *
     * @return true when the kernel took it, false when this implementation cannot set it per socket at run time
     */
    default boolean trafficClass(int tos) throws SocketException {
        return false;
    }

    /**
     * Receives one datagram into {@code buffer} and its metadata into {@code meta}.
     *
     * @param timeoutNs how long to wait: negative = forever, 0 = do not block
     * @return the payload length, {@link #TIMEOUT} or {@link #CLOSED}
     */
    int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs) throws SocketException;

    /**
     * Receives up to {@link DatagramBatch#capacity()} datagrams with one system call (recvmmsg on the FFM
     * socket): waits up to {@code timeoutNs} for the first, then takes what is already queued, without
     * waiting. Each slot's length and metadata are set as {@link #receive} sets them. Uses the receive path:
     * never call it concurrently with {@link #receive}.
     *
     * @param timeoutNs as in {@link #receive}
     * @return datagrams received (1..capacity, also in {@link DatagramBatch#count()}), {@link #TIMEOUT} or
     *         {@link #CLOSED}
     */
    default int receiveBatch(DatagramBatch batch, long timeoutNs) throws SocketException {
        int n = receive(batch.buffer(0), batch.meta(0), timeoutNs);
        if (n < 0) {
            batch.received(0);
            return n;
        }
        batch.length(0, n);
        int count = 1;
        while (count < batch.capacity()) {
            int m = receive(batch.buffer(count), batch.meta(count), 0);
            if (m < 0) {
                break;
            }
            batch.length(count++, m);
        }
        batch.received(count);
        return count;
    }

    /**
     * Sends the first {@link DatagramBatch#count()} slots of {@code batch} (set with
     * {@link DatagramBatch#prepareSend}) with one system call (sendmmsg on the FFM socket). Uses the send
     * path: never call it concurrently with {@link #send}.
     *
     * @return how many datagrams the kernel took, from slot 0 on (fewer than asked when its buffer is full;
     *         0 when it would block)
     */
    default int sendBatch(DatagramBatch batch) throws SocketException {
        int sent = 0;
        for (int i = 0; i < batch.count(); i++) {
            if (send(batch.buffer(i), batch.length(i), batch.destination(i)) <= 0) {
                break;
            }
            sent++;
        }
        return sent;
    }

    /**
     * Datagrams the kernel dropped at this socket since it was opened because its receive buffer was full
     * (SO_MEMINFO, SK_MEMINFO_DROPS), or -1 when the implementation cannot tell. Loss counted here happened
     * in this host, not in the network. Callable from any thread.
     */
    default long kernelDrops() {
        return -1;
    }

    /**
     * The receive buffer the kernel granted (getsockopt SO_RCVBUF: twice the bytes asked for, the kernel's
     * bookkeeping share included, capped at twice {@code net.core.rmem_max} unless SO_RCVBUFFORCE was allowed), or
     * -1 when the implementation cannot tell. Any thread.
     */
    default int receiveBufferBytes() {
        return -1;
    }

    /** Drains TX timestamps from the error queue (non-blocking); @return how many were delivered. */
    int pollTxTimestamps(TxTimestampHandler handler) throws SocketException;

    /**
     * Drains TX timestamps as {@link #pollTxTimestamps} does (same reports, same order, non-blocking), reading up
     * to {@value #TX_TIMESTAMP_BATCH} error-queue entries per system call (recvmmsg with MSG_ERRQUEUE on the FFM
     * socket): draining k pending reports costs {@code k / 32 + 1} calls instead of {@code k + 1}. Uses the
     * error-queue path: never call it concurrently with {@link #pollTxTimestamps}. The first call allocates the
     * native batch once; later calls allocate nothing.
     *
     * @return how many were delivered
     */
    default int pollTxTimestampsBatched(TxTimestampHandler handler) throws SocketException {
        return pollTxTimestamps(handler);
    }

    /** Error-queue entries {@link #pollTxTimestampsBatched} reads with one system call. */
    int TX_TIMESTAMP_BATCH = 32;

    /**
     * Packets sent so far: on a socket stamping every send, the OPT_ID the kernel gives the next send. Read it from
     * the sending thread.
     */
    long sentPacketCount();

    /**
     * Sends as {@link #send} does, with a kernel TX timestamp asked for this datagram: on a socket opened with
     * {@link UdpSocketOptions.Builder#txTimestampsPerSend} the only sends stamped are these (an SO_TIMESTAMPING
     * control message on the sendmsg); on any other socket this is {@link #send}, stamped when the socket stamps
     * every send. The stamp arrives through {@link #pollTxTimestamps} with the id {@link #txStampId} had before the
     * call. Send path.
     */
    default int sendStamped(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        return send(data, length, destination);
    }

    /**
     * The packet id (SOF_TIMESTAMPING_OPT_ID) the kernel gives the next TX-stamped send: {@link #sentPacketCount}
     * on a socket stamping every send; with {@link #txTimestampsPerSend} the number of {@link #sendStamped} calls
     * that sent (the kernel counts only the datagrams it stamps). Read it from the sending thread.
     */
    default long txStampId() {
        return sentPacketCount();
    }

    /** True when only {@link #sendStamped} sends get TX timestamps ({@link UdpSocketOptions#txTimestampsPerSend}). */
    default boolean txTimestampsPerSend() {
        return false;
    }

    /** Wakes a blocked receive, which then returns {@link #CLOSED}, as do all later receives (shutdown(2)). */
    void wakeup();

    /** Wakes the receiver and closes; native memory is released only after the receiver has left recvmsg. */
    @Override
    void close();
}
