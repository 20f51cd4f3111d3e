package io.github.twping.control;

import io.github.twping.protocol.AcceptCode;
import java.net.InetSocketAddress;

/**
 * Daemon-wide decisions a {@link ControlServerConnection} asks for while setting a connection up
 * (docs/SERVER.md steps 1 to 4). Implementations must be thread-safe (one call per connection thread)
 * and must not do I/O on the connection.
 */
public interface ServerPolicy {
    /** @return the modes bit mask offered in the Server-Greeting to this peer; 0 closes after the greeting. */
    int offeredModes(InetSocketAddress peer);

    /** @return the PBKDF2 iteration Count put in the greeting (1..2^31-1; twampd's default is 2048). */
    int pbkdf2Count();

    /**
     * Looks up the pass-phrase of an identity (exact match of the KeyID bytes up to the first NUL,
     * decoded as UTF-8).
     *
     * @return a fresh copy of the pass-phrase bytes (the connection wipes it after use), or
     *         {@code null} for an unknown identity
     */
    byte[] passphrase(String identity);

    /**
     * Control policy check after authentication (limits, step 4).
     *
     * @return {@link AcceptCode#ACCEPT} to continue; anything else is sent in Server-Start and the
     *         connection is closed (REJECT for a policy denial, FAILURE for an internal error)
     */
    AcceptCode authorize(ControlPeer peer);
}
