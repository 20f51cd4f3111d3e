package io.github.twping.stamp;

import io.github.twping.protocol.StampTlvLayout;

/**
 * The STAMP TLV codes this implementation knows, as the sender, the reflector and the reports name them: the wire
 * layout (header, type codes, value fields) is {@code protocol.StampTlvLayout}, whose constants these are; the
 * synchronization source and timestamping method codes of RFC 8972 §4.3 and their report names are here.
 */
public final class StampTlv {
    /** Bytes of a TLV header. */
    public static final int HEADER_LENGTH = StampTlvLayout.HEADER_LENGTH;
    /** U flag: the Session-Reflector did not recognise the TLV (most significant bit of Flags). */
    public static final int FLAG_U = StampTlvLayout.FLAG_U;
    /** M flag: the TLV was malformed. */
    public static final int FLAG_M = StampTlvLayout.FLAG_M;
    /** I flag: integrity check of the TLVs failed (HMAC TLV). */
    public static final int FLAG_I = StampTlvLayout.FLAG_I;
    /** Class of Service RPE values (draft-ietf-ippm-stamp-cos-ecn §3.1): none, EC1 not set, EC1 set. */
    public static final int RPE_NONE = StampTlvLayout.RPE_NONE;
    public static final int RPE_NOT_SET = StampTlvLayout.RPE_NOT_SET;
    public static final int RPE_SET = StampTlvLayout.RPE_SET;

    /** Extra Padding (RFC 8972 §4.1). */
    public static final int EXTRA_PADDING = StampTlvLayout.TYPE_EXTRA_PADDING;
    /** Location (RFC 8972 §4.2). */
    public static final int LOCATION = StampTlvLayout.TYPE_LOCATION;
    /** Timestamp Information (RFC 8972 §4.3). */
    public static final int TIMESTAMP_INFORMATION = StampTlvLayout.TYPE_TIMESTAMP_INFORMATION;
    /** Class of Service (RFC 8972 §4.4). */
    public static final int CLASS_OF_SERVICE = StampTlvLayout.TYPE_CLASS_OF_SERVICE;
    /** Direct Measurement (RFC 8972 §4.5). */
    public static final int DIRECT_MEASUREMENT = StampTlvLayout.TYPE_DIRECT_MEASUREMENT;
    /** Access Report (RFC 8972 §4.6). */
    public static final int ACCESS_REPORT = StampTlvLayout.TYPE_ACCESS_REPORT;
    /** Follow-Up Telemetry (RFC 8972 §4.7). */
    public static final int FOLLOW_UP_TELEMETRY = StampTlvLayout.TYPE_FOLLOW_UP_TELEMETRY;
    /** HMAC (RFC 8972 §4.8). */
    public static final int HMAC = StampTlvLayout.TYPE_HMAC;
    /** Destination Node Address (RFC 9503 §3). */
    public static final int DESTINATION_NODE_ADDRESS = StampTlvLayout.TYPE_DESTINATION_NODE_ADDRESS;
    /** Return Path (RFC 9503 §4). */
    public static final int RETURN_PATH = StampTlvLayout.TYPE_RETURN_PATH;
    /** Micro-session ID (RFC 9534 §3.1). */
    public static final int MICRO_SESSION_ID = StampTlvLayout.TYPE_MICRO_SESSION_ID;

    /** Value length of Timestamp Information without sub-TLVs (RFC 8972 §4.3). */
    public static final int TIMESTAMP_INFORMATION_LENGTH = StampTlvLayout.TIMESTAMP_INFORMATION_LENGTH;
    /** Value length of Class of Service (RFC 8972 §4.4). */
    public static final int CLASS_OF_SERVICE_LENGTH = StampTlvLayout.CLASS_OF_SERVICE_LENGTH;
    /** Value length of Direct Measurement (RFC 8972 §4.5). */
    public static final int DIRECT_MEASUREMENT_LENGTH = StampTlvLayout.DIRECT_MEASUREMENT_LENGTH;
    /** Value length of Access Report (RFC 8972 §4.6). */
    public static final int ACCESS_REPORT_LENGTH = StampTlvLayout.ACCESS_REPORT_LENGTH;
    /** Value length of Follow-Up Telemetry (RFC 8972 §4.7). */
    public static final int FOLLOW_UP_TELEMETRY_LENGTH = StampTlvLayout.FOLLOW_UP_TELEMETRY_LENGTH;
    /** Least value length of Location (RFC 8972 §4.2): the two ports, sub-TLVs after. */
    public static final int LOCATION_LENGTH = StampTlvLayout.LOCATION_LENGTH;
    /** Location sub-TLV type "Source MAC Address" (RFC 8972 §4.2, IANA STAMP Sub-TLV Types). */
    public static final int SUB_SOURCE_MAC = StampTlvLayout.SUB_SOURCE_MAC;
    /** Location sub-TLV type "Source EUI-64 Address". */
    public static final int SUB_SOURCE_EUI64 = StampTlvLayout.SUB_SOURCE_EUI64;
    /** Location sub-TLV type "Destination IPv4 Address" (value: 4 octets). */
    public static final int SUB_DESTINATION_IPV4 = StampTlvLayout.SUB_DESTINATION_IPV4;
    /** Location sub-TLV type "Source IPv4 Address" (value: 4 octets). */
    public static final int SUB_SOURCE_IPV4 = StampTlvLayout.SUB_SOURCE_IPV4;
    /** Location sub-TLV type "Destination IPv6 Address" (value: 16 octets). */
    public static final int SUB_DESTINATION_IPV6 = StampTlvLayout.SUB_DESTINATION_IPV6;
    /** Location sub-TLV type "Source IPv6 Address" (value: 16 octets). */
    public static final int SUB_SOURCE_IPV6 = StampTlvLayout.SUB_SOURCE_IPV6;
    /** Value length of the HMAC TLV (RFC 8972 §4.8). */
    public static final int HMAC_LENGTH = StampTlvLayout.HMAC_LENGTH;

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

    /** @return true for the types this reflector recognises (it clears U on them): {@link StampTlvLayout#known}. */
    public static boolean recognised(int type) {
        return StampTlvLayout.known(type);
    }

    /**
     * @return the value length a recognised type must have (-1: any length; for Timestamp Information, Location and
     * Return Path the least, sub-TLVs may follow; for Destination Node Address 4, or 16)
     */
    public static int valueLength(int type) {
        StampTlvLayout layout = StampTlvLayout.of(type);
        return layout == null ? -1 : layout.valueLength();
    }

    /** @return true when {@code length} is a valid value length for the recognised {@code type}. */
    public static boolean validLength(int type, int length) {
        StampTlvLayout layout = StampTlvLayout.of(type);
        return layout == null || layout.validLength(length);
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
