package io.github.twping.control;

/** What {@link ControlClient#awaitActivity(long)} observed on the control connection during a test. */
public enum ControlActivity {
    /** Nothing happened before the timeout: the test may go on. */
    QUIET,
    /** The server sent data during the test (fatal, docs/CLI.md, exit statuses). */
    DATA_RECEIVED,
    /** The server closed or reset the connection (fatal, docs/CLI.md, exit statuses). */
    PEER_CLOSED,
    /** This side closed the connection ({@link ControlClient#close()}); not a server failure. */
    LOCALLY_CLOSED
}
