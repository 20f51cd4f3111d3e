package io.github.twping.session;

/** How a client test session ended. */
public enum SessionOutcome {
    /** Every packet was sent and the last one flushed after the loss timeout. */
    COMPLETED,
    /** Stopped on request (Ctrl-C, {@code cancel()}); partial results are valid. */
    CANCELLED,
    /** Ended early by an invalid reply (docs/PROTOCOL-TEST.md); results so far are valid. */
    ENDED_BY_REPLY,
    /** A receive error ended the test early; results so far are valid. */
    RECEIVE_FAILED,
    /** A hard send error ended the test (the C worker's failure status 2). */
    SEND_FAILED,
    /** Writing the session data file failed. */
    DATA_FILE_FAILED;

    /** @return the Accept value for Stop-Sessions: 0 for success, 2 (FAILURE) for a worker failure. */
    public int stopSessionsAccept() {
        return this == SEND_FAILED || this == DATA_FILE_FAILED ? 2 : 0;
    }
}
