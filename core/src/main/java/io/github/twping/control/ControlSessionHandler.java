package io.github.twping.control;

import io.github.twping.protocol.AcceptCode;

/**
 * Per-connection callbacks of a {@link ControlServerConnection}: the owner sets up, starts and
 * stops the reflectors (sockets, limits, logging are its business). Called from the connection's
 * thread only, after the set-up succeeded; {@link #closed} is always called exactly once.
 */
public interface ControlSessionHandler {
    /**
     * A valid Request-TW-Session arrived (HMAC checked, Conf-*, slots and packets 0, IPVN 4 or 6,
     * Type-P within 0x3F000000; zero addresses already replaced by the control connection's).
     *
     * @param peer    the connection's peer
     * @param request the request; {@link SessionRequest#senderAddress()} and
     *                {@link SessionRequest#receiverAddress()} are never {@code null} here
     * @return the Accept-Session content: {@link SessionAcceptance#accepted(int, byte[])} (see
     *         {@link SessionIds}) or {@link SessionAcceptance#refused(int)}; {@code null} closes the
     *         connection without a reply (C behaviour for reflector set-up failures)
     */
    SessionAcceptance requestSession(ControlPeer peer, SessionRequest request);

    /**
     * Start-Sessions arrived: start every reflector accepted on this connection.
     *
     * @return the Start-Ack code: {@link AcceptCode#ACCEPT}, or {@link AcceptCode#FAILURE} on failure
     */
    AcceptCode startSessions(ControlPeer peer);

    /**
     * A valid Stop-Sessions arrived while the sessions run (its session count matched): stop the
     * reflectors now. The connection then returns to its request loop.
     *
     * @param acceptCode the client's Accept octet (no effect in twampd)
     */
    void stopSessions(ControlPeer peer, int acceptCode);

    /**
     * The connection ended; stop and release everything created for it.
     *
     * @param peer   the peer, or {@code null} when the set-up did not complete
     * @param reason why it ended
     */
    void closed(ControlPeer peer, ControlCloseReason reason);
}
