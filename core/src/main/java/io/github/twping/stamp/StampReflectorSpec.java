package io.github.twping.stamp;

import java.util.List;
import io.github.twping.crypto.TestSessionKeys;
import java.util.Arrays;

/**
 * How a STAMP or TWAMP-Light Session-Reflector answers (RFC 8762 §4.3, RFC 5357 Appendix I).
 *
 * @param light          TWAMP-Light: the RFC 5357 §4.1.2/§4.2.1 unauthenticated layouts instead of STAMP's
 * @param authenticated  STAMP: the authenticated format (HMAC-SHA-256/128 over bytes 0..95); TWAMP-Light: the
 *                       authenticated TWAMP-Test packets of RFC 5357 §4.1.2/§4.2.1 (AES block 0, HMAC-SHA1/128)
 * @param key            the shared key (required when authenticated): STAMP's HMAC key; for TWAMP-Light
 *                       exactly {@link #LIGHT_KEY_LENGTH} octets, the AES test key (16) then the HMAC test key
 *                       (32)
 * @param stateful       stateful reflector (RFC 8762 §4.3): its own sequence number per session (source address,
 *                       port and SSID); stateless copies the sender's sequence number
 * @param format         the format of the reflector's timestamps (Z flag)
 * @param allowed        source networks allowed to be answered; empty = all
 * @param ratePerSource  replies per second per source address and port (token bucket with a one-second burst);
 *                       0 = unlimited
 * @param maxPeers       size of the preallocated peer table
 * @param asymmetric     TWAMP-Light only: replies of the base 41 octets plus {@code reflectOctets}, whatever the
 *                       request's size (RFC 5357 §4.2.1 without the symmetric size of RFC 6038); default
 *                       (false): the reply has the request's size, at least 41 octets
 * @param reflectOctets  TWAMP-Light only: octets of the sender's padding copied to the start of the reply's
 *                       padding (RFC 6038 §4.2, configured here instead of negotiated); in the symmetric mode
 *                       the whole padding is copied anyway
 * @param memberLink     STAMP only: this reflector's member link identifier for the Micro-session ID TLV (RFC 9534
 *                       §3.2), 1..65535; 0 = none (the TLV is answered with U set)
 * @param strict         STAMP only: drop requests shorter than the STAMP base packet instead of answering them with a
 *                       zero-filled base packet as RFC 8762 §4.6 describes for TWAMP-Light senders
 */
public record StampReflectorSpec(boolean light, boolean authenticated, byte[] key, boolean stateful,
                                 TimestampFormat format, List<SourceNetwork> allowed, int ratePerSource,
                                 int maxPeers, boolean asymmetric, int reflectOctets, int memberLink,
                                 boolean strict) {
    /** Default peer table size. */
    public static final int DEFAULT_MAX_PEERS = 4096;

    public StampReflectorSpec {
        if (format == null) {
            throw new IllegalArgumentException("timestamp format is required");
        }
        if (light && authenticated && (key == null || key.length != LIGHT_KEY_LENGTH)) {
            throw new IllegalArgumentException("authenticated TWAMP-Light needs a key of " + LIGHT_KEY_LENGTH
                    + " octets (AES key 16, HMAC key 32)");
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
        if (light && strict) {
            throw new IllegalArgumentException("strict request lengths apply to STAMP; TWAMP-Light drops short requests");
        }
        if (light && memberLink != 0) {
            throw new IllegalArgumentException("a member link identifier applies to STAMP (RFC 9534), not TWAMP-Light");
        }
        if ((asymmetric || reflectOctets != 0) && !light) {
            throw new IllegalArgumentException("reply size options apply to TWAMP-Light (STAMP replies have the "
                    + "request's size, RFC 8762 section 4.3)");
        }
        if (reflectOctets < 0 || reflectOctets > MAX_REFLECT_OCTETS) {
            throw new IllegalArgumentException("reflect octets out of range (0.." + MAX_REFLECT_OCTETS + "): "
                    + reflectOctets);
        }
        if (memberLink < 0 || memberLink > MAX_MEMBER_LINK) {
            throw new IllegalArgumentException("member link identifier out of range (1.." + MAX_MEMBER_LINK + "): "
                    + memberLink);
        }
        key = key == null ? null : key.clone();
        allowed = List.copyOf(allowed);
    }

    /** Key length of authenticated TWAMP-Light: the 16-octet AES test key, then the 32-octet HMAC test key. */
    public static final int LIGHT_KEY_LENGTH = 48;

    /** @return the test-session keys of authenticated TWAMP-Light from a {@link #LIGHT_KEY_LENGTH}-octet key */
    public static TestSessionKeys lightKeys(byte[] key) {
        if (key == null || key.length != LIGHT_KEY_LENGTH) {
            throw new IllegalArgumentException("authenticated TWAMP-Light needs a key of " + LIGHT_KEY_LENGTH
                    + " octets (AES key 16, HMAC key 32)");
        }
        return TestSessionKeys.of(Arrays.copyOfRange(key, 0, 16),
                Arrays.copyOfRange(key, 16, LIGHT_KEY_LENGTH));
    }

    /** Largest {@code reflectOctets}: the padding of a TWAMP-Light reply inside one datagram. */
    public static final int MAX_REFLECT_OCTETS = 65_000;

    /** Largest member link identifier (a 16-bit field, RFC 9534 §3.1). */
    public static final int MAX_MEMBER_LINK = 0xFFFF;

    /** No member link identifier. */
    public StampReflectorSpec(boolean light, boolean authenticated, byte[] key, boolean stateful,
                              TimestampFormat format, List<SourceNetwork> allowed, int ratePerSource, int maxPeers,
                              boolean asymmetric, int reflectOctets) {
        this(light, authenticated, key, stateful, format, allowed, ratePerSource, maxPeers, asymmetric, reflectOctets,
                0, false);
    }

    /** @return this spec with {@code memberLink} as the member link identifier (RFC 9534 §3.2) */
    public StampReflectorSpec withMemberLink(int memberLink) {
        return new StampReflectorSpec(light, authenticated, key, stateful, format, allowed, ratePerSource, maxPeers,
                asymmetric, reflectOctets, memberLink, strict);
    }

    /** @return this spec with {@code strict} (see {@link #strict()}) */
    public StampReflectorSpec withStrict(boolean strict) {
        return new StampReflectorSpec(light, authenticated, key, stateful, format, allowed, ratePerSource, maxPeers,
                asymmetric, reflectOctets, memberLink, strict);
    }

    /** The symmetric reply size, no octets to reflect beyond it. */
    public StampReflectorSpec(boolean light, boolean authenticated, byte[] key, boolean stateful,
                              TimestampFormat format, List<SourceNetwork> allowed, int ratePerSource, int maxPeers) {
        this(light, authenticated, key, stateful, format, allowed, ratePerSource, maxPeers, false, 0, 0, false);
    }

    /** An unauthenticated stateless STAMP reflector with NTP timestamps, answering everyone. */
    public static StampReflectorSpec stamp() {
        return new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP, List.of(), 0,
                DEFAULT_MAX_PEERS);
    }
}
