package io.github.twping.control;

import io.github.twping.protocol.Mode;
import java.net.InetSocketAddress;

/**
 * Who is on the other end of an authenticated-and-keyed server control connection.
 *
 * @param remote   the client's address and port
 * @param local    this server's address and port on the connection
 * @param mode     the negotiated mode
 * @param identity the KeyID (UTF-8 decoded, up to the first NUL), or {@code null} in Open mode
 */
public record ControlPeer(InetSocketAddress remote, InetSocketAddress local, Mode mode, String identity) { }
