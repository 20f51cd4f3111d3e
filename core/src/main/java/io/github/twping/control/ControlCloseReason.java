package io.github.twping.control;

/** Why a server control connection ended (for the daemon's log; docs/SERVER.md). */
public enum ControlCloseReason {
    /** No mode is offered to this peer: closed after the greeting. */
    NO_MODES_OFFERED,
    /** Set-Up-Response Mode was not exactly one of 1, 2, 4, 8: closed without a reply. */
    INVALID_MODE,
    /** The client chose a valid mode that was not offered: Server-Start Accept 1 (deliberately unlike C). */
    MODE_NOT_OFFERED,
    /** Unknown KeyID: Server-Start Accept 1 (twampd logs {@code userid "<id>" unknown}). */
    UNKNOWN_IDENTITY,
    /** The Token did not decrypt to the challenge (wrong pass-phrase): Server-Start Accept 1. */
    INVALID_TOKEN,
    /** {@link ServerPolicy#authorize} refused: Server-Start with its code. */
    DENIED,
    /** The client closed the connection (between messages or in the middle of one). */
    PEER_CLOSED,
    /** No complete message within {@code controltimeout}. */
    TIMEOUT,
    /** A received HMAC did not verify. */
    HMAC_FAILURE,
    /**
     * A protocol violation that ends the connection: unexpected command while sessions run,
     * Stop-Sessions count mismatch, or the handler declined to answer a request.
     */
    PROTOCOL_ERROR,
    /** {@link ControlServerConnection#close()} was called (daemon shutdown, reflector timeout). */
    CLOSED_LOCALLY,
    /** Another socket error. */
    IO_ERROR
}
