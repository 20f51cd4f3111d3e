package io.github.twping.session;

import java.util.concurrent.locks.LockSupport;

/**
 * The one policy both reflectors ({@link SessionReflector} for TWAMP, {@code stamp.StampReflector} for STAMP and
 * TWAMP-Light) follow when the kernel refuses a reply (the send returned 0: EAGAIN or ENOBUFS, the socket's send
 * buffer or the device queue is full): park {@link #PARK_NS}, take a fresh send timestamp, try again, at most
 * {@link #ATTEMPTS} times, then drop the reply (the sender counts it as lost; the reflector counts the retries).
 *
 * <p>Why these numbers: a parked retry costs at least 10 µs and, with the kernel's timer slack, typically 50-60 µs,
 * so 100 attempts hold the reflector for about 1-6 ms. A queue that has not drained in that time is not a
 * transient; meanwhile every request behind this one waits in the receive buffer, and at 100,000 packets/s a 6 ms
 * stall already queues 600 of them. Dropping one reply then costs one sample, where waiting longer (the TWAMP
 * reflector's former 1000 attempts, up to about 60 ms) delays hundreds and risks overflowing the receive buffer.
 * Each attempt re-stamps the reply, so the wait never shows as network delay.
 */
public final class SendRetry {
    /** Send attempts for one reply, the first included. */
    public static final int ATTEMPTS = 100;
    /** Pause between two attempts. */
    public static final long PARK_NS = 10_000;

    private SendRetry() {
    }

    /** Pauses before the next attempt. */
    public static void pause() {
        LockSupport.parkNanos(PARK_NS);
    }
}
