package io.github.twping.protocol;

/**
 * The one description of the STAMP TLVs that follow a STAMP base packet (RFC 8972 §4) and of their sub-TLVs, which
 * share the header: {@code Flags(1) | Type(1) | Length(2) | Value(Length)}, Length counting the value octets only.
 * Each TLV type this implementation knows is one constant descriptor (its IANA type code, a name and the rule its
 * value length must meet); the fields inside each value are named offsets from the value's first octet, read and
 * written only by {@link StampTlvFlyweight}. A new TLV is one more descriptor, its field offsets and its flyweight
 * accessors.
 *
 * <p>Types of the IANA "STAMP TLV Types" registry: RFC 8972 §4.1-§4.8 (1-8), RFC 9503 §3 and §4 (9, 10), RFC 9534
 * §3.1 (11). Return Path sub-TLV types are those of RFC 9503 §4.1; Location sub-TLV types those of RFC 8972 §4.2.
 */
public final class StampTlvLayout {
    // --- the header (RFC 8972 §4, Figure 2) ---------------------------------------------------------------------
    /** Offset of the STAMP TLV Flags in the header. */
    public static final int FLAGS = 0;
    /** Offset of the Type in the header. */
    public static final int TYPE = 1;
    /** Offset of the Length (value octets, 16 bits) in the header. */
    public static final int LENGTH = 2;
    /** Bytes of a TLV (or sub-TLV) header. */
    public static final int HEADER_LENGTH = 4;
    /** U flag (most significant bit of Flags): the Session-Reflector did not recognise or could not use the TLV. */
    public static final int FLAG_U = 0x80;
    /** M flag: the TLV was malformed. */
    public static final int FLAG_M = 0x40;
    /** I flag: the integrity check of the TLVs failed (HMAC TLV). */
    public static final int FLAG_I = 0x20;
    /** The flag bits RFC 8972 §4 defines (U, M, I); the other five are unassigned. */
    public static final int DEFINED_FLAGS = FLAG_U | FLAG_M | FLAG_I;

    // --- type codes -------------------------------------------------------------------------------------------
    /** Extra Padding (RFC 8972 §4.1). */
    public static final int TYPE_EXTRA_PADDING = 1;
    /** Location (RFC 8972 §4.2). */
    public static final int TYPE_LOCATION = 2;
    /** Timestamp Information (RFC 8972 §4.3). */
    public static final int TYPE_TIMESTAMP_INFORMATION = 3;
    /** Class of Service (RFC 8972 §4.4). */
    public static final int TYPE_CLASS_OF_SERVICE = 4;
    /** Direct Measurement (RFC 8972 §4.5). */
    public static final int TYPE_DIRECT_MEASUREMENT = 5;
    /** Access Report (RFC 8972 §4.6). */
    public static final int TYPE_ACCESS_REPORT = 6;
    /** Follow-Up Telemetry (RFC 8972 §4.7). */
    public static final int TYPE_FOLLOW_UP_TELEMETRY = 7;
    /** HMAC (RFC 8972 §4.8). */
    public static final int TYPE_HMAC = 8;
    /** Destination Node Address (RFC 9503 §3). */
    public static final int TYPE_DESTINATION_NODE_ADDRESS = 9;
    /** Return Path (RFC 9503 §4). */
    public static final int TYPE_RETURN_PATH = 10;
    /** Micro-session ID (RFC 9534 §3.1). */
    public static final int TYPE_MICRO_SESSION_ID = 11;

    // --- field offsets inside the values, from the value's first octet -------------------------------------------
    /** Location: Destination Port(2) | Source Port(2) | sub-TLVs. */
    public static final int LOCATION_DESTINATION_PORT = 0;
    public static final int LOCATION_SOURCE_PORT = 2;
    public static final int LOCATION_SUB_TLVS = 4;
    /** Timestamp Information: Sync Src In(1) | Timestamp In(1) | Sync Src Out(1) | Timestamp Out(1) | sub-TLVs. */
    public static final int TIMESTAMP_SYNC_IN = 0;
    public static final int TIMESTAMP_METHOD_IN = 1;
    public static final int TIMESTAMP_SYNC_OUT = 2;
    public static final int TIMESTAMP_METHOD_OUT = 3;
    /**
     * Class of Service: DSCP1(6) DSCP2(6) EC2(2) RPD(2) in a 16-bit word (RFC 8972 §4.4 with erratum 8199: EC2 is the
     * ECN the reflector received), then EC1(2) RPE(2) Reserved(12) (draft-ietf-ippm-stamp-cos-ecn §3.1: the bits RFC
     * 8972 reserved; EC1 is the ECN the reply is to carry, RPE what the reflector did with it).
     */
    public static final int COS_WORD = 0;
    public static final int COS_RESERVED = 2;
    /** The octet of EC1 (bits 7-6) and RPE (bits 5-4); the low four bits and the next octet are Reserved. */
    public static final int COS_EC1_RPE = 2;
    /** RPE: the sender's value, or a reflector that does not know the field (RFC 8972 only). */
    public static final int RPE_NONE = 0;
    /** RPE: the reflector could not set the reply's ECN to EC1 and sent Not-ECT. */
    public static final int RPE_NOT_SET = 2;
    /** RPE: the reply's ECN is EC1. */
    public static final int RPE_SET = 3;
    /** Direct Measurement: Session-Sender Tx counter S_TxC(4) | R_RxC(4) | R_TxC(4). */
    public static final int DIRECT_SENDER_TX = 0;
    public static final int DIRECT_REFLECTOR_RX = 4;
    public static final int DIRECT_REFLECTOR_TX = 8;
    /** Access Report: ID(4 bits) Resv(4 bits) | Return Code(8) | Reserved(16). */
    public static final int ACCESS_ID = 0;
    public static final int ACCESS_RETURN_CODE = 1;
    public static final int ACCESS_RESERVED = 2;
    /** Follow-Up Telemetry: Sequence Number(4) | Follow-up Timestamp(8) | Timestamp Mode(1) | Reserved(3). */
    public static final int FOLLOW_UP_SEQUENCE = 0;
    public static final int FOLLOW_UP_TIMESTAMP = 4;
    public static final int FOLLOW_UP_MODE = 12;
    public static final int FOLLOW_UP_RESERVED = 13;
    /** Micro-session ID: Sender Micro-session ID(2) | Reflector Micro-session ID(2). */
    public static final int MICRO_SESSION_SENDER = 0;
    public static final int MICRO_SESSION_REFLECTOR = 2;
    /** Return Path Control Code sub-TLV: Control Code Flags(4); the Reply Request flag is its least significant bit. */
    public static final int CONTROL_CODE_FLAGS = 0;

    // --- value lengths ------------------------------------------------------------------------------------------
    public static final int TIMESTAMP_INFORMATION_LENGTH = 4;
    public static final int CLASS_OF_SERVICE_LENGTH = 4;
    public static final int DIRECT_MEASUREMENT_LENGTH = 12;
    public static final int ACCESS_REPORT_LENGTH = 4;
    public static final int FOLLOW_UP_TELEMETRY_LENGTH = 16;
    public static final int LOCATION_LENGTH = 4;
    public static final int HMAC_LENGTH = 16;
    public static final int MICRO_SESSION_ID_LENGTH = 4;
    public static final int IPV4_LENGTH = 4;
    public static final int IPV6_LENGTH = 16;
    public static final int CONTROL_CODE_LENGTH = 4;
    /** Bytes of one SR-MPLS label stack entry (RFC 3032 §2.1): Label(20) TC(3) S(1) TTL(8). */
    public static final int MPLS_ENTRY_LENGTH = 4;
    /** Bytes of one SRv6 segment (an IPv6 address). */
    public static final int SRV6_SEGMENT_LENGTH = 16;

    // --- sub-TLV types ------------------------------------------------------------------------------------------
    /** Location sub-TLV "Source MAC Address" (RFC 8972 §4.2, IANA STAMP Sub-TLV Types). */
    public static final int SUB_SOURCE_MAC = 1;
    /** Location sub-TLV "Source EUI-64 Address". */
    public static final int SUB_SOURCE_EUI64 = 2;
    /** Location sub-TLV "Destination IPv4 Address". */
    public static final int SUB_DESTINATION_IPV4 = 3;
    /** Location sub-TLV "Source IPv4 Address". */
    public static final int SUB_SOURCE_IPV4 = 4;
    /** Location sub-TLV "Destination IPv6 Address". */
    public static final int SUB_DESTINATION_IPV6 = 5;
    /** Location sub-TLV "Source IPv6 Address". */
    public static final int SUB_SOURCE_IPV6 = 6;
    /** Return Path sub-TLV "Return Path Control Code" (RFC 9503 §4.1.1). */
    public static final int SUB_RETURN_CONTROL_CODE = 1;
    /** Return Path sub-TLV "Return Address" (RFC 9503 §4.1.2). */
    public static final int SUB_RETURN_ADDRESS = 2;
    /** Return Path sub-TLV "SR-MPLS Label Stack" (RFC 9503 §4.1.3.1). */
    public static final int SUB_RETURN_SR_MPLS = 3;
    /** Return Path sub-TLV "SRv6 Segment List" (RFC 9503 §4.1.3.2). */
    public static final int SUB_RETURN_SRV6 = 4;
    /** Control Code Flags value "No Reply Requested" (RFC 9503 §4.1.1). */
    public static final int CONTROL_CODE_NO_REPLY = 0;
    /** Control Code Flags value "Reply Requested on the Same Link" (RFC 9503 §4.1.1). */
    public static final int CONTROL_CODE_SAME_LINK = 1;

    /** How a value length is checked. */
    private enum Rule { ANY, EXACT, AT_LEAST, ADDRESS }

    /** Extra Padding: any length. */
    public static final StampTlvLayout EXTRA_PADDING = new StampTlvLayout("extra_padding", TYPE_EXTRA_PADDING,
            Rule.ANY, 0);
    /** Location: the ports, then sub-TLVs. */
    public static final StampTlvLayout LOCATION = new StampTlvLayout("location", TYPE_LOCATION, Rule.AT_LEAST,
            LOCATION_LENGTH);
    /** Timestamp Information: four octets, then optional sub-TLVs. */
    public static final StampTlvLayout TIMESTAMP_INFORMATION = new StampTlvLayout("timestamp_information",
            TYPE_TIMESTAMP_INFORMATION, Rule.AT_LEAST, TIMESTAMP_INFORMATION_LENGTH);
    /** Class of Service. */
    public static final StampTlvLayout CLASS_OF_SERVICE = new StampTlvLayout("class_of_service",
            TYPE_CLASS_OF_SERVICE, Rule.EXACT, CLASS_OF_SERVICE_LENGTH);
    /** Direct Measurement. */
    public static final StampTlvLayout DIRECT_MEASUREMENT = new StampTlvLayout("direct_measurement",
            TYPE_DIRECT_MEASUREMENT, Rule.EXACT, DIRECT_MEASUREMENT_LENGTH);
    /** Access Report. */
    public static final StampTlvLayout ACCESS_REPORT = new StampTlvLayout("access_report", TYPE_ACCESS_REPORT,
            Rule.EXACT, ACCESS_REPORT_LENGTH);
    /** Follow-Up Telemetry. */
    public static final StampTlvLayout FOLLOW_UP_TELEMETRY = new StampTlvLayout("follow_up_telemetry",
            TYPE_FOLLOW_UP_TELEMETRY, Rule.EXACT, FOLLOW_UP_TELEMETRY_LENGTH);
    /** HMAC over the Sequence Number and the TLVs before it. */
    public static final StampTlvLayout HMAC = new StampTlvLayout("hmac", TYPE_HMAC, Rule.EXACT, HMAC_LENGTH);
    /** Destination Node Address: an IPv4 (4) or IPv6 (16) address. */
    public static final StampTlvLayout DESTINATION_NODE_ADDRESS = new StampTlvLayout("destination_node_address",
            TYPE_DESTINATION_NODE_ADDRESS, Rule.ADDRESS, IPV4_LENGTH);
    /** Return Path: one or more sub-TLVs (at least one header). */
    public static final StampTlvLayout RETURN_PATH = new StampTlvLayout("return_path", TYPE_RETURN_PATH,
            Rule.AT_LEAST, HEADER_LENGTH);
    /** Micro-session ID. */
    public static final StampTlvLayout MICRO_SESSION_ID = new StampTlvLayout("micro_session_id",
            TYPE_MICRO_SESSION_ID, Rule.EXACT, MICRO_SESSION_ID_LENGTH);

    private static final StampTlvLayout[] BY_TYPE = {null, EXTRA_PADDING, LOCATION, TIMESTAMP_INFORMATION,
        CLASS_OF_SERVICE, DIRECT_MEASUREMENT, ACCESS_REPORT, FOLLOW_UP_TELEMETRY, HMAC, DESTINATION_NODE_ADDRESS,
        RETURN_PATH, MICRO_SESSION_ID};

    private final String name;
    private final int type;
    private final Rule rule;
    private final int valueLength;

    private StampTlvLayout(String name, int type, Rule rule, int valueLength) {
        this.name = name;
        this.type = type;
        this.rule = rule;
        this.valueLength = valueLength;
    }

    /** @return the descriptor of {@code type}, or null for a type this implementation does not know */
    public static StampTlvLayout of(int type) {
        return type > 0 && type < BY_TYPE.length ? BY_TYPE[type] : null;
    }

    /** @return true when {@code type} has a descriptor here */
    public static boolean known(int type) {
        return of(type) != null;
    }

    /** @return the name used in the JSON output and docs ({@code class_of_service}, ...) */
    public String name() {
        return name;
    }

    /** @return the IANA type code */
    public int type() {
        return type;
    }

    /** @return the value length the type has (the least one for variable types, 4 for an address), -1 for any */
    public int valueLength() {
        return rule == Rule.ANY ? -1 : valueLength;
    }

    /** @return the bytes of the TLV with a fixed-size value, header included */
    public int size() {
        return HEADER_LENGTH + valueLength;
    }

    /** @return true when a value of {@code length} octets is well formed for this type */
    public boolean validLength(int length) {
        return switch (rule) {
            case ANY -> true;
            case EXACT -> length == valueLength;
            case AT_LEAST -> length >= valueLength;
            case ADDRESS -> length == IPV4_LENGTH || length == IPV6_LENGTH;
        };
    }

    @Override
    public String toString() {
        return name + " (type " + type + ")";
    }
}
