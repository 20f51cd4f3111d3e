package io.github.twping.pacing;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * Pacer that polls the clock and idles with an Agrona {@link IdleStrategy} between polls, by default
 * {@link BackoffIdleStrategy}: spins, then yields, then parks with a period doubling up to a maximum.
 *
 * <p>The idle strategy does not know the deadline, so a send can be late by up to the maximum park period;
 * this is what plugging a generic Agrona idle strategy into the send loop gives.
 */
public final class BackoffPacer implements Pacer {
    /** Agrona's default number of spins before yielding. */
    public static final long MAX_SPINS = 10;
    /** Agrona's default number of yields before parking. */
    public static final long MAX_YIELDS = 5;
    /** Agrona's default first park period. */
    public static final long MIN_PARK_PERIOD_NS = 1_000;

    private final PacingClock clock;
    private final IdleStrategy idleStrategy;

    /**
     * Uses Agrona's {@link BackoffIdleStrategy} with its default steps and the given maximum park period.
     *
     * @param clock             time source.
     * @param maxParkPeriodNs   longest park, in nanoseconds (Agrona's default is 1 ms).
     */
    public BackoffPacer(PacingClock clock, long maxParkPeriodNs) {
        this(clock, new BackoffIdleStrategy(MAX_SPINS, MAX_YIELDS, MIN_PARK_PERIOD_NS, maxParkPeriodNs));
    }

    /**
     * @param clock        time source.
     * @param idleStrategy what to do between two clock polls; reset before each deadline.
     */
    public BackoffPacer(PacingClock clock, IdleStrategy idleStrategy) {
        this.clock = clock;
        this.idleStrategy = idleStrategy;
    }

    @Override
    public long awaitDeadline(long deadlineNs) {
        long nowNs = clock.nanoTime();
        if (nowNs < deadlineNs) {
            idleStrategy.reset();
            do {
                idleStrategy.idle();
                nowNs = clock.nanoTime();
            } while (nowNs < deadlineNs);
        }
        return nowNs - deadlineNs;
    }
}
