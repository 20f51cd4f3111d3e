package io.github.twping.metrics;

import java.util.Locale;

/**
 * Why an attempt to measure a target failed: the {@code reason} label of
 * {@code twping_agent_session_failures_total}. A closed set, so the label's cardinality is bounded.
 */
public enum FailureReason {
    /** The host name did not resolve. */
    DNS,
    /** TCP connect refused, unreachable or timed out. */
    CONNECT,
    /** The server refused the mode or the identity (Server-Start Accept != 0, no common mode). */
    AUTH,
    /** The server refused the test session (Accept-Session != 0). */
    SESSION_REFUSED,
    /** The control connection broke or timed out during set-up or a session. */
    CONTROL,
    /** The local test socket could not be opened. */
    SOCKET,
    /** The test itself failed (send error, data file). */
    TEST,
    /** The key file became unreadable. */
    KEY_FILE,
    /** STAMP or TWAMP-Light: not one packet of the session was answered (no control connection tells us more). */
    NO_REPLY;

    /** @return the label value. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
