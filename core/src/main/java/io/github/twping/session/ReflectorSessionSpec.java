package io.github.twping.session;

import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.protocol.Mode;
import java.net.InetSocketAddress;

/**
 * The immutable description of one reflected session, fixed by Request-TW-Session and Accept-Session.
 *
 * @param mode          the negotiated mode
 * @param sender        the Session-Sender's address and port (after zero-address substitution); only
 *                      datagrams from exactly this address and port are reflected
 * @param paddingLength Padding Length from the request (gives the expected request length Lq)
 * @param refwaitNs     REFWAIT ({@code testtimeout}): the session ends when no datagram arrives for this long;
 *                      0 = wait forever
 * @param keys          the test keys (RFC 4656 §4.1.1, docs/PROTOCOL-TEST.md) for Authenticated and Encrypted, else null
 */
public record ReflectorSessionSpec(Mode mode, InetSocketAddress sender, int paddingLength, long refwaitNs,
        TestSessionKeys keys) {

    /** Largest padding accepted (keeps the request inside one 64 KiB datagram). */
    public static final int MAX_PADDING = 65_000;

    public ReflectorSessionSpec {
        if (mode == null) {
            throw new IllegalArgumentException("mode is required");
        }
        if (sender == null) {
            throw new IllegalArgumentException("sender address is required");
        }
        if (paddingLength < 0 || paddingLength > MAX_PADDING) {
            throw new IllegalArgumentException("padding length out of range: " + paddingLength);
        }
        if (mode.authenticatedTestPackets() && keys == null) {
            throw new IllegalArgumentException("authenticated and encrypted modes need test session keys");
        }
        if (refwaitNs < 0) {
            throw new IllegalArgumentException("refwait must be >= 0");
        }
    }
}
