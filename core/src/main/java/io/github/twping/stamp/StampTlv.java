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

    /** Value length of Timestamp Information without sub-TLVs (RFC 8972 §4.3): Sync Src In, Timestamp In, Sync Src Out, Timestamp Out. */
    public static final int TIMESTAMP_INFORMATION_LENGTH = 4;
    /** Value length of Class of Service (RFC 8972 §4.4): DSCP1(6 bits) DSCP2(6) ECN(2) RP(2) Reserved(16). */
    public static final int CLASS_OF_SERVICE_LENGTH = 4;
    /** Value length of Direct Measurement (RFC 8972 §4.5): S_TxC, R_RxC, R_TxC, four octets each. */
    public static final int DIRECT_MEASUREMENT_LENGTH = 12;
    /** Value length of Access Report (RFC 8972 §4.6): ID(4 bits) Resv(4) Return Code(8) Reserved(16). */
    public static final int ACCESS_REPORT_LENGTH = 4;
    /** Value length of Follow-Up Telemetry (RFC 8972 §4.7): Sequence Number(4) Timestamp(8) Mode(1) Reserved(3). */
    public static final int FOLLOW_UP_TELEMETRY_LENGTH = 16;
    /** Least value length of Location (RFC 8972 §4.2): Destination Port(2) Source Port(2), sub-TLVs after. */
    public static final int LOCATION_LENGTH = 4;
    /** Location sub-TLV type "Source MAC Address" (RFC 8972 §4.2, IANA STAMP Sub-TLV Types). */
    public static final int SUB_SOURCE_MAC = 1;
    /** Location sub-TLV type "Source EUI-64 Address". */
    public static final int SUB_SOURCE_EUI64 = 2;
    /** Location sub-TLV type "Destination IPv4 Address" (value: 4 octets). */
    public static final int SUB_DESTINATION_IPV4 = 3;
    /** Location sub-TLV type "Source IPv4 Address" (value: 4 octets). */
    public static final int SUB_SOURCE_IPV4 = 4;
    /** Location sub-TLV type "Destination IPv6 Address" (value: 16 octets). */
    public static final int SUB_DESTINATION_IPV6 = 5;
    /** Location sub-TLV type "Source IPv6 Address" (value: 16 octets). */
    public static final int SUB_SOURCE_IPV6 = 6;
    /** Value length of the HMAC TLV (RFC 8972 §4.8). */
    public static final int HMAC_LENGTH = 16;

    /** Synchronization source "NTP" (RFC 8972 §4.3, IANA STAMP registry). */
    public static final int SYNC_NTP = 1;
    /** Synchronization source "PTP". */
    public static final int SYNC_PTP = 2;
    /** Synchronization source "Local free-running". */
    public static final int SYNC_FREE_RUNNING = 5;
    /** Timestamping method "HW Assist" (RFC 8972 §4.3): the network card's stamp. */
    public static final int METHOD_HW_ASSIST = 1;
    /** Timestamping method "SW local": this implementation's kernel software stamp. */
    public static final int METHOD_SW_LOCAL = 2;
    /** Timestamping method "Control plane". */
    public static final int METHOD_CONTROL_PLANE = 3;
    /**
     * Timestamping method of this implementation from the registry's Private Use range: the clock read in user
     * space around the system call (the kernel gave no stamp). Kept apart from {@link #METHOD_SW_LOCAL} so the
     * sender can tell kernel stamps from user-space ones (docs/STAMP.md).
     */
    public static final int METHOD_USER_SPACE = 254;

    private StampTlv() {
    }

    /** @return true for the types this reflector recognises (it clears U on them). */
    public static boolean recognised(int type) {
        return type >= EXTRA_PADDING && type <= HMAC;
    }

    /**
     * @return the value length a recognised type must have (-1: any length; for Timestamp Information the least,
     * sub-TLVs may follow)
     */
    public static int valueLength(int type) {
        return switch (type) {
            case TIMESTAMP_INFORMATION -> TIMESTAMP_INFORMATION_LENGTH;
            case LOCATION -> LOCATION_LENGTH;
            case CLASS_OF_SERVICE -> CLASS_OF_SERVICE_LENGTH;
            case DIRECT_MEASUREMENT -> DIRECT_MEASUREMENT_LENGTH;
            case ACCESS_REPORT -> ACCESS_REPORT_LENGTH;
            case FOLLOW_UP_TELEMETRY -> FOLLOW_UP_TELEMETRY_LENGTH;
            case HMAC -> HMAC_LENGTH;
            default -> -1;
        };
    }

    /** @return true when {@code length} is a valid value length for the recognised {@code type}. */
    public static boolean validLength(int type, int length) {
        int want = valueLength(type);
        if (type == TIMESTAMP_INFORMATION || type == LOCATION) {
            return length >= want;
        }
        return want < 0 || length == want;
    }

    /** @return the name of a timestamping method code, as the sender reports it */
    public static String methodName(int method) {
        return switch (method) {
            case METHOD_HW_ASSIST -> "kernel_hardware";
            case METHOD_SW_LOCAL -> "kernel_software";
            case METHOD_CONTROL_PLANE -> "control_plane";
            case METHOD_USER_SPACE -> "user";
            default -> "unknown";
        };
    }

    /** @return the name of a synchronization source code */
    public static String syncName(int source) {
        return switch (source) {
            case SYNC_NTP -> "ntp";
            case SYNC_PTP -> "ptp";
            case SYNC_FREE_RUNNING -> "free_running";
            default -> "unknown";
        };
    }
}
