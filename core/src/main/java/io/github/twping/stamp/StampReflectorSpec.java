package io.github.twping.stamp;

import java.util.List;

/**
 * How a STAMP or TWAMP-Light Session-Reflector answers (RFC 8762 §4.3, RFC 5357 Appendix I).
 *
 * @param light          TWAMP-Light: the RFC 5357 §4.1.2/§4.2.1 unauthenticated layouts instead of STAMP's
 * @param authenticated  STAMP authenticated format (HMAC-SHA-256/128 over bytes 0..95); not with {@code light}
 * @param key            the shared HMAC key (required when authenticated)
 * @param stateful       stateful reflector (RFC 8762 §4.3): its own sequence number per session (source address,
 *                       port and SSID); stateless copies the sender's sequence number
 * @param format         the format of the reflector's timestamps (Z flag)
 * @param allowed        source networks allowed to be answered; empty = all
 * @param ratePerSource  replies per second per source address and port (token bucket with a one-second burst);
 *                       0 = unlimited
 * @param maxPeers       size of the preallocated peer table
 */
public record StampReflectorSpec(boolean light, boolean authenticated, byte[] key, boolean stateful,
                                 TimestampFormat format, List<SourceNetwork> allowed, int ratePerSource,
                                 int maxPeers) {
    /** Default peer table size. */
    public static final int DEFAULT_MAX_PEERS = 4096;

    public StampReflectorSpec {
        if (format == null) {
            throw new IllegalArgumentException("timestamp format is required");
        }
        if (light && authenticated) {
            throw new IllegalArgumentException("TWAMP-Light is reflected in the unauthenticated format only");
        }
        if (authenticated && (key == null || key.length == 0)) {
            throw new IllegalArgumentException("an authenticated STAMP reflector needs a key");
        }
        if (ratePerSource < 0) {
            throw new IllegalArgumentException("rate limit must be >= 0");
        }
        if (maxPeers < 1 || maxPeers > 1 << 20) {
            throw new IllegalArgumentException("peer table size out of range: " + maxPeers);
        }
        key = key == null ? null : key.clone();
        allowed = List.copyOf(allowed);
    }

    /** An unauthenticated stateless STAMP reflector with NTP timestamps, answering everyone. */
    public static StampReflectorSpec stamp() {
        return new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP, List.of(), 0,
                DEFAULT_MAX_PEERS);
    }
}
