package io.github.twping.agent;

/**
 * What the {@link Agent} needs of one target's measurement loop, whichever the protocol: {@link TwampTargetRunner}
 * for TWAMP (a control connection), {@link StampTargetRunner} for STAMP and TWAMP-Light.
 */
interface Runner {
    /** Starts the loop on a virtual thread. */
    void start();

    /** @return the current configuration (a pending one first). */
    TargetConfig config();

    /** Applies a changed configuration of the same target at the next session boundary. */
    void update(TargetConfig next);

    /** Ends the runner after the running session. */
    void retire();

    /** Stops now: the running session is cancelled and its partial results recorded. */
    void stopNow();

    /** Waits for the runner to end; true if it did. */
    boolean await(long timeoutNs) throws InterruptedException;

    /** @return sessions completed so far. */
    long sessionsDone();

    /** @return failed attempts so far. */
    long failures();
}
