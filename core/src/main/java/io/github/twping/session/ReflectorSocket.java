package io.github.twping.session;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * The UDP socket a {@link SessionReflector} reads sender packets from and sends replies with. It mirrors
 * the {@code ffm} {@code UdpSocket} contract (caller-owned segments, timeout/closed return codes, metadata of
 * the last datagram readable without allocation) so the reflector runs over the native socket or the NIO
 * fallback unchanged.
 */
public interface ReflectorSocket extends AutoCloseable {
    /** {@link #receive} result: nothing arrived before the timeout. */
    int TIMEOUT = -1;
    /** {@link #receive} result: the socket was woken for shutdown or closed. */
    int CLOSED = -2;

    /** The bound local address. */
    InetSocketAddress localAddress();

    /**
     * Receives one datagram into {@code buffer} (truncated to {@code capacity} bytes).
     *
     * @param timeoutNs how long to block; negative = forever
     * @return the number of bytes stored, {@link #TIMEOUT} or {@link #CLOSED}
     */
    int receive(MemorySegment buffer, int capacity, long timeoutNs) throws IOException;

    /** Whether the last received datagram came from exactly {@code expected} (address and port). */
    boolean lastSourceIs(InetSocketAddress expected);

    /** IP TTL / hop limit of the last received datagram, or -1 if unknown. */
    int lastTtl();

    /** TOS / traffic class byte of the last received datagram, or -1 when the socket cannot read it. */
    default int lastTos() {
        return -1;
    }

    /** Receive time of the last datagram in epoch nanoseconds (kernel timestamp when available). */
    long lastRxEpochNs();

    /**
     * Sends {@code length} bytes of {@code data} to {@code destination}.
     *
     * @return bytes sent, or 0 when the kernel would block (the caller may retry)
     */
    int send(MemorySegment data, int length, InetSocketAddress destination) throws IOException;

    /** Wakes a blocked {@link #receive}, which then returns {@link #CLOSED}. */
    void wakeup();

    /** Whether the receive timestamps come from the kernel (else taken in user space right after receive). */
    boolean kernelTimestamps();

    @Override
    void close();
}
