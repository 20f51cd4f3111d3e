package io.github.twping.stamp;

/**
 * The STAMP TLV header (RFC 8972 §4): {@code Flags(1) | Type(1) | Length(2)}, Length counting the value octets
 * only, and the type codes of the IANA "STAMP TLV Types" registry that this implementation knows.
 */
public final class StampTlv {
    /** Bytes of a TLV header. */
    public static final int HEADER_LENGTH = 4;
    /** U flag: the Session-Reflector did not recognise the TLV (most significant bit of Flags). */
    public static final int FLAG_U = 0x80;
    /** M flag: the TLV was malformed. */
    public static final int FLAG_M = 0x40;
    /** I flag: integrity check of the TLVs failed (HMAC TLV). */
    public static final int FLAG_I = 0x20;

    /** Extra Padding (RFC 8972 §4.1). */
    public static final int EXTRA_PADDING = 1;
    /** Location (RFC 8972 §4.2). */
    public static final int LOCATION = 2;
    /** Timestamp Information (RFC 8972 §4.3). */
    public static final int TIMESTAMP_INFORMATION = 3;
    /** Class of Service (RFC 8972 §4.4). */
    public static final int CLASS_OF_SERVICE = 4;
    /** Direct Measurement (RFC 8972 §4.5). */
    public static final int DIRECT_MEASUREMENT = 5;
    /** Access Report (RFC 8972 §4.6). */
    public static final int ACCESS_REPORT = 6;
    /** Follow-Up Telemetry (RFC 8972 §4.7). */
    public static final int FOLLOW_UP_TELEMETRY = 7;
    /** HMAC (RFC 8972 §4.8). */
    public static final int HMAC = 8;

    private StampTlv() {
    }

    /** @return true for the types this reflector recognises (it clears U on them). */
    public static boolean recognised(int type) {
        return type == EXTRA_PADDING;
    }
}
