package io.github.twping.stamp;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import io.github.twping.protocol.StampTlvLayout;

/**
 * The RFC 8972 TLVs a Session-Sender puts after the base packet, in this order: Extra Padding (from
 * {@link StampSenderSpec#extraPadding()}), Timestamp Information, Class of Service, Direct Measurement, Access Report,
 * Follow-Up Telemetry, HMAC (always last, RFC 8972 §4.8).
 *
 * @param timestampInformation ask the reflector for its synchronization source and timestamping methods (§4.3)
 * @param classOfServiceDscp   the DSCP (0..63) the reply is to carry (§4.4), or -1 for no Class of Service TLV
 * @param directMeasurement    packet counters of both sides (§4.5)
 * @param accessId             Access Report ID (§4.6: 1 = 3GPP, 2 = non-3GPP, 0..15), or -1 for no Access Report
 * @param accessReturnCode     Access Report Return Code (0..255), with {@code accessId}
 * @param followUpTelemetry    ask for the reflector's kernel transmit stamp of its previous reply (§4.7)
 * @param hmac                 HMAC TLV over the Sequence Number and the preceding TLVs (§4.8; authenticated mode)
 * @param location             a Location TLV (§4.2) with the four address sub-TLVs (source and destination, IPv4
 *                             and IPv6; the reflector fills those of the packet's family), sent before the HMAC TLV
 * @param destinationNode      a Destination Node Address TLV (RFC 9503 §3) naming the reflector, or null
 * @param returnPath           a Return Path TLV (RFC 9503 §4), or null
 * @param microSessionSender   a Micro-session ID TLV (RFC 9534 §3.1) with this Sender Micro-session ID (0..65535),
 *                             or -1 for none
 * @param microSessionReflector the Reflector Micro-session ID the sender knows (0: unknown), with
 *                             {@code microSessionSender}
 */
public record StampTlvRequest(boolean timestampInformation, int classOfServiceDscp, boolean directMeasurement,
                              int accessId, int accessReturnCode, boolean followUpTelemetry, boolean hmac,
                              boolean location, InetAddress destinationNode, ReturnPath returnPath,
                              int microSessionSender, int microSessionReflector) {
    /** No TLVs besides Extra Padding. */
    public static final StampTlvRequest NONE = new StampTlvRequest(false, -1, false, -1, 0, false, false);

    /**
     * The Return Path TLV (RFC 9503 §4.1) a sender asks for: a Control Code alone, or a Return Address and/or one
     * segment list (SR-MPLS labels or SRv6 segments), as the RFC's sender rules allow.
     *
     * @param controlCode   the Control Code Flags (0 No Reply Requested, 1 Reply Requested on the Same Link), or -1
     * @param returnAddress the Return Address, or null
     * @param mplsLabels    SR-MPLS labels (0..2^20-1), top of the stack first; empty for none
     * @param srv6Segments  SRv6 segments (IPv6 addresses), first hop first; empty for none
     */
    public record ReturnPath(int controlCode, InetAddress returnAddress, List<Integer> mplsLabels,
                             List<InetAddress> srv6Segments) {
        public ReturnPath {
            mplsLabels = List.copyOf(mplsLabels);
            srv6Segments = List.copyOf(srv6Segments);
            if (controlCode < -1 || controlCode > 1) {
                throw new IllegalArgumentException("Return Path Control Code must be 0 or 1: " + controlCode);
            }
            if (controlCode >= 0 && (returnAddress != null || !mplsLabels.isEmpty() || !srv6Segments.isEmpty())) {
                throw new IllegalArgumentException("a Return Path Control Code goes alone (RFC 9503 section 4.1)");
            }
            if (!mplsLabels.isEmpty() && !srv6Segments.isEmpty()) {
                throw new IllegalArgumentException(
                        "one Return Path segment list: SR-MPLS or SRv6 (RFC 9503 section 4.1.3)");
            }
            if (controlCode < 0 && returnAddress == null && mplsLabels.isEmpty() && srv6Segments.isEmpty()) {
                throw new IllegalArgumentException("an empty Return Path");
            }
            for (int label : mplsLabels) {
                if (label < 0 || label > MAX_LABEL) {
                    throw new IllegalArgumentException("MPLS label out of range (0.." + MAX_LABEL + "): " + label);
                }
            }
            for (InetAddress segment : srv6Segments) {
                if (segment.getAddress().length != StampTlvLayout.SRV6_SEGMENT_LENGTH) {
                    throw new IllegalArgumentException("an SRv6 segment is an IPv6 address: "
                            + segment.getHostAddress());
                }
            }
        }

        /** Largest MPLS label (20 bits). */
        public static final int MAX_LABEL = (1 << 20) - 1;

        /** @return the value octets: the sub-TLVs, each with its header */
        public int valueLength() {
            int n = 0;
            if (controlCode >= 0) {
                n += StampTlvLayout.HEADER_LENGTH + StampTlvLayout.CONTROL_CODE_LENGTH;
            }
            if (returnAddress != null) {
                n += StampTlvLayout.HEADER_LENGTH + returnAddress.getAddress().length;
            }
            if (!mplsLabels.isEmpty()) {
                n += StampTlvLayout.HEADER_LENGTH + mplsLabels.size() * StampTlvLayout.MPLS_ENTRY_LENGTH;
            }
            if (!srv6Segments.isEmpty()) {
                n += StampTlvLayout.HEADER_LENGTH + srv6Segments.size() * StampTlvLayout.SRV6_SEGMENT_LENGTH;
            }
            return n;
        }

        /** @return the sub-TLVs by their JSON names, in the order sent */
        public List<String> names() {
            List<String> names = new ArrayList<>();
            if (controlCode >= 0) {
                names.add(controlCode == StampTlvLayout.CONTROL_CODE_NO_REPLY ? "control_code_no_reply"
                        : "control_code_same_link");
            }
            if (returnAddress != null) {
                names.add("return_address");
            }
            if (!mplsLabels.isEmpty()) {
                names.add("sr_mpls_label_stack");
            }
            if (!srv6Segments.isEmpty()) {
                names.add("srv6_segment_list");
            }
            return names;
        }
    }

    /** Value octets of our Location TLV: the ports, then four sub-TLVs (IPv4 and IPv6 destination and source). */
    public static final int LOCATION_VALUE_LENGTH = StampTlv.LOCATION_LENGTH
            + 2 * (StampTlv.HEADER_LENGTH + StampTlvLayout.IPV4_LENGTH)
            + 2 * (StampTlv.HEADER_LENGTH + StampTlvLayout.IPV6_LENGTH);

    /** Without a Location TLV and the RFC 9503/9534 TLVs. */
    public StampTlvRequest(boolean timestampInformation, int classOfServiceDscp, boolean directMeasurement,
                           int accessId, int accessReturnCode, boolean followUpTelemetry, boolean hmac) {
        this(timestampInformation, classOfServiceDscp, directMeasurement, accessId, accessReturnCode,
                followUpTelemetry, hmac, false);
    }

    /** Without the RFC 9503/9534 TLVs. */
    public StampTlvRequest(boolean timestampInformation, int classOfServiceDscp, boolean directMeasurement,
                           int accessId, int accessReturnCode, boolean followUpTelemetry, boolean hmac,
                           boolean location) {
        this(timestampInformation, classOfServiceDscp, directMeasurement, accessId, accessReturnCode,
                followUpTelemetry, hmac, location, null, null, -1, 0);
    }

    public StampTlvRequest {
        if (classOfServiceDscp < -1 || classOfServiceDscp > 63) {
            throw new IllegalArgumentException("Class of Service DSCP out of range (0..63): " + classOfServiceDscp);
        }
        if (accessId < -1 || accessId > 15) {
            throw new IllegalArgumentException("Access Report ID out of range (0..15): " + accessId);
        }
        if (accessReturnCode < 0 || accessReturnCode > 255) {
            throw new IllegalArgumentException("Access Report Return Code out of range (0..255): " + accessReturnCode);
        }
        if (microSessionSender < -1 || microSessionSender > 0xFFFF || microSessionReflector < 0
                || microSessionReflector > 0xFFFF) {
            throw new IllegalArgumentException("Micro-session IDs are 16-bit: " + microSessionSender + ":"
                    + microSessionReflector);
        }
    }

    /** @return true when a Micro-session ID TLV is sent */
    public boolean microSession() {
        return microSessionSender >= 0;
    }

    /** @return true when any TLV besides Extra Padding is asked for */
    public boolean any() {
        return timestampInformation || classOfServiceDscp >= 0 || directMeasurement || accessId >= 0
                || followUpTelemetry || hmac || location || destinationNode != null || returnPath != null
                || microSession();
    }

    /** @return octets of these TLVs (headers and values), Extra Padding not included */
    public int bytes() {
        int n = 0;
        if (timestampInformation) {
            n += StampTlv.HEADER_LENGTH + StampTlv.TIMESTAMP_INFORMATION_LENGTH;
        }
        if (classOfServiceDscp >= 0) {
            n += StampTlv.HEADER_LENGTH + StampTlv.CLASS_OF_SERVICE_LENGTH;
        }
        if (directMeasurement) {
            n += StampTlv.HEADER_LENGTH + StampTlv.DIRECT_MEASUREMENT_LENGTH;
        }
        if (accessId >= 0) {
            n += StampTlv.HEADER_LENGTH + StampTlv.ACCESS_REPORT_LENGTH;
        }
        if (followUpTelemetry) {
            n += StampTlv.HEADER_LENGTH + StampTlv.FOLLOW_UP_TELEMETRY_LENGTH;
        }
        if (location) {
            n += StampTlv.HEADER_LENGTH + LOCATION_VALUE_LENGTH;
        }
        if (destinationNode != null) {
            n += StampTlv.HEADER_LENGTH + destinationNode.getAddress().length;
        }
        if (returnPath != null) {
            n += StampTlv.HEADER_LENGTH + returnPath.valueLength();
        }
        if (microSession()) {
            n += StampTlvLayout.MICRO_SESSION_ID.size();
        }
        if (hmac) {
            n += StampTlv.HEADER_LENGTH + StampTlv.HMAC_LENGTH;
        }
        return n;
    }

    /**
     * Parses the {@code --tlv} list: comma-separated {@code ts}, {@code cos=DSCP}, {@code dm}, {@code ar=ID:CODE},
     * {@code fut}, {@code hmac}, {@code loc}, {@code dna=ADDRESS} (RFC 9503 §3), {@code rp-cc=0|1},
     * {@code rp-addr=ADDRESS}, {@code rp-mpls=LABEL[/LABEL...]}, {@code rp-srv6=SID[/SID...]} (the sub-TLVs of one
     * Return Path TLV, RFC 9503 §4.1), {@code msid=SENDER[:REFLECTOR]} (RFC 9534 §3.1), or {@code all} (ts, cos=0,
     * dm, fut, and hmac when {@code authenticated}; none of the others). Addresses are numeric literals.
     *
     * @throws IllegalArgumentException naming the bad element
     */
    public static StampTlvRequest parse(String list, boolean authenticated) {
        boolean ts = false;
        boolean dm = false;
        boolean fut = false;
        boolean hmac = false;
        boolean loc = false;
        int cos = -1;
        int id = -1;
        int code = 0;
        InetAddress dna = null;
        int rpcc = -1;
        InetAddress rpAddress = null;
        List<Integer> labels = List.of();
        List<InetAddress> sids = List.of();
        int msidSender = -1;
        int msidReflector = 0;
        for (String raw : list.split(",", -1)) {
            String e = raw.trim();
            if (e.equals("all")) {
                ts = true;
                dm = true;
                fut = true;
                hmac = authenticated;
                cos = Math.max(cos, 0);
            } else if (e.equals("ts")) {
                ts = true;
            } else if (e.equals("dm")) {
                dm = true;
            } else if (e.equals("fut")) {
                fut = true;
            } else if (e.equals("loc")) {
                loc = true;
            } else if (e.equals("hmac")) {
                if (!authenticated) {
                    throw new IllegalArgumentException("the HMAC TLV needs the authenticated format (-A A -u -k)");
                }
                hmac = true;
            } else if (e.startsWith("cos=")) {
                cos = number(e.substring(4), 0, 63, e);
            } else if (e.startsWith("dna=")) {
                dna = literal(e.substring(4), e);
            } else if (e.startsWith("rp-cc=")) {
                rpcc = number(e.substring(6), 0, 1, e);
            } else if (e.startsWith("rp-addr=")) {
                rpAddress = literal(e.substring(8), e);
            } else if (e.startsWith("rp-mpls=")) {
                List<Integer> l = new ArrayList<>();
                for (String label : e.substring(8).split("/", -1)) {
                    l.add(number(label, 0, ReturnPath.MAX_LABEL, e));
                }
                labels = l;
            } else if (e.startsWith("rp-srv6=")) {
                List<InetAddress> l = new ArrayList<>();
                for (String sid : e.substring(8).split("/", -1)) {
                    InetAddress a = literal(sid, e);
                    if (a.getAddress().length != StampTlvLayout.SRV6_SEGMENT_LENGTH) {
                        throw new IllegalArgumentException("invalid TLV: " + e + " (SRv6 segments are IPv6)");
                    }
                    l.add(a);
                }
                sids = l;
            } else if (e.startsWith("msid=")) {
                String[] parts = e.substring(5).split(":", -1);
                if (parts.length > 2) {
                    throw new IllegalArgumentException("invalid TLV: " + e);
                }
                msidSender = number(parts[0], 0, 0xFFFF, e);
                msidReflector = parts.length == 2 ? number(parts[1], 0, 0xFFFF, e) : 0;
            } else if (e.startsWith("ar=")) {
                String[] parts = e.substring(3).split(":", -1);
                if (parts.length != 2) {
                    throw new IllegalArgumentException("invalid TLV: " + e);
                }
                id = number(parts[0], 0, 15, e);
                code = number(parts[1], 0, 255, e);
            } else {
                throw new IllegalArgumentException("invalid TLV: " + e);
            }
        }
        ReturnPath rp = null;
        if (rpcc >= 0 || rpAddress != null || !labels.isEmpty() || !sids.isEmpty()) {
            try {
                rp = new ReturnPath(rpcc, rpAddress, labels, sids);
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("invalid TLV: " + ex.getMessage());
            }
        }
        return new StampTlvRequest(ts, cos, dm, id, code, fut, hmac, loc, dna, rp, msidSender, msidReflector);
    }

    /** A numeric IPv4 or IPv6 address (never a name: no resolver traffic). */
    private static InetAddress literal(String text, String element) {
        try {
            return InetAddress.ofLiteral(text.trim());
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("invalid TLV: " + element + " (a numeric address)");
        }
    }

    private static int number(String text, int low, int high, String element) {
        try {
            int v = Integer.parseInt(text.trim());
            if (v >= low && v <= high) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("invalid TLV: " + element);
    }
}
