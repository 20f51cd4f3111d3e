package io.github.twping.stamp;

/**
 * What a STAMP Session-Sender puts in its packets.
 *
 * @param authenticated the authenticated format (RFC 8762 §4.2.2) with HMAC-SHA-256 over bytes 0..95
 * @param key           the shared HMAC key (required when authenticated, else ignored)
 * @param format        the format of the sender's timestamps (Z flag)
 * @param ssid          the Session-Sender Identifier, 0..65535 (RFC 8972 §3; 0 = none)
 * @param extraPadding  octets of the Extra Padding TLV's value (RFC 8972 §4.1); 0 = no TLV
 * @param tlvs          the other RFC 8972 TLVs
 * @param ecn           the ECN of our packets ({@code --ecn}, 0..3): the EC1 of the Class of Service TLV, the ECN the
 *                      reply is to carry (draft-ietf-ippm-stamp-cos-ecn; docs/STAMP.md)
 * @param taiSeconds    the TAI-UTC offset for PTP-format timestamps ({@link TaiOffset}; 0 = unknown)
 */
public record StampSenderSpec(boolean authenticated, byte[] key, TimestampFormat format, int ssid, int extraPadding,
                              StampTlvRequest tlvs, int ecn, int taiSeconds) {
    /** Largest Extra Padding value: keeps the packet inside one UDP datagram. */
    public static final int MAX_EXTRA_PADDING = 65_000;

    public StampSenderSpec {
        if (format == null) {
            throw new IllegalArgumentException("timestamp format is required");
        }
        if (authenticated && (key == null || key.length == 0)) {
            throw new IllegalArgumentException("an authenticated STAMP session needs a key");
        }
        if (ssid < 0 || ssid > 0xFFFF) {
            throw new IllegalArgumentException("SSID out of range: " + ssid);
        }
        if (extraPadding < 0 || extraPadding > MAX_EXTRA_PADDING) {
            throw new IllegalArgumentException("extra padding out of range: " + extraPadding);
        }
        if (tlvs == null) {
            tlvs = StampTlvRequest.NONE;
        }
        if (tlvs.hmac() && !authenticated) {
            throw new IllegalArgumentException("the HMAC TLV needs the authenticated format");
        }
        if (ecn < 0 || ecn > 3) {
            throw new IllegalArgumentException("ECN out of range: " + ecn);
        }
        key = key == null ? null : key.clone();
    }

    /** A spec with Not-ECT packets and the TAI-UTC offset unknown. */
    public StampSenderSpec(boolean authenticated, byte[] key, TimestampFormat format, int ssid, int extraPadding,
                           StampTlvRequest tlvs) {
        this(authenticated, key, format, ssid, extraPadding, tlvs, 0, 0);
    }

    /** A spec with Extra Padding as its only TLV. */
    public StampSenderSpec(boolean authenticated, byte[] key, TimestampFormat format, int ssid, int extraPadding) {
        this(authenticated, key, format, ssid, extraPadding, StampTlvRequest.NONE);
    }

    /** @return the bytes after the base packet: the Extra Padding TLV (header and value) and the other TLVs. */
    public int tlvBytes() {
        return (extraPadding == 0 ? 0 : StampTlv.HEADER_LENGTH + extraPadding) + tlvs.bytes();
    }
}
