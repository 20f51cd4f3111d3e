package io.github.twping.session;

import io.github.twping.crypto.TestSessionKeys;
import java.net.InetSocketAddress;

/**
 * The immutable description of one reflected session, fixed by Request-TW-Session and Accept-Session.
 *
 * @param mode          negotiated mode bit (1 Open, 2 Authenticated, 4 Encrypted, 8 Mixed)
 * @param sender        the Session-Sender's address and port (after zero-address substitution); only
 *                      datagrams from exactly this address and port are reflected
 * @param paddingLength Padding Length from the request (gives the expected request length Lq)
 * @param refwaitNs     REFWAIT ({@code testtimeout}): the session ends when no datagram arrives for this long;
 *                      0 = wait forever
 * @param keys          the test keys (RFC 4656 §4.1.1, docs/PROTOCOL-TEST.md) for modes 2 and 4, else null
 */
public record ReflectorSessionSpec(int mode, InetSocketAddress sender, int paddingLength, long refwaitNs,
        TestSessionKeys keys) {

    /** Largest padding accepted (keeps the request inside one 64 KiB datagram). */
    public static final int MAX_PADDING = 65_000;

    public ReflectorSessionSpec {
        if (sender == null) {
            throw new IllegalArgumentException("sender address is required");
        }
        if (paddingLength < 0 || paddingLength > MAX_PADDING) {
            throw new IllegalArgumentException("padding length out of range: " + paddingLength);
        }
        if ((mode == 2 || mode == 4) && keys == null) {
            throw new IllegalArgumentException("modes 2 and 4 need test session keys");
        }
        if (refwaitNs < 0) {
            throw new IllegalArgumentException("refwait must be >= 0");
        }
    }
}
