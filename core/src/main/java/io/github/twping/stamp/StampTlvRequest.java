package io.github.twping.stamp;

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
 */
public record StampTlvRequest(boolean timestampInformation, int classOfServiceDscp, boolean directMeasurement,
                              int accessId, int accessReturnCode, boolean followUpTelemetry, boolean hmac,
                              boolean location) {
    /** No TLVs besides Extra Padding. */
    public static final StampTlvRequest NONE = new StampTlvRequest(false, -1, false, -1, 0, false, false);

    /** Value octets of our Location TLV: the ports, then four sub-TLVs (IPv4 and IPv6 destination and source). */
    public static final int LOCATION_VALUE_LENGTH = StampTlv.LOCATION_LENGTH + 2 * (StampTlv.HEADER_LENGTH + 4)
            + 2 * (StampTlv.HEADER_LENGTH + 16);

    /** Without a Location TLV. */
    public StampTlvRequest(boolean timestampInformation, int classOfServiceDscp, boolean directMeasurement,
                           int accessId, int accessReturnCode, boolean followUpTelemetry, boolean hmac) {
        this(timestampInformation, classOfServiceDscp, directMeasurement, accessId, accessReturnCode,
                followUpTelemetry, hmac, false);
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
    }

    /** @return true when any TLV besides Extra Padding is asked for */
    public boolean any() {
        return timestampInformation || classOfServiceDscp >= 0 || directMeasurement || accessId >= 0
                || followUpTelemetry || hmac || location;
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
        if (hmac) {
            n += StampTlv.HEADER_LENGTH + StampTlv.HMAC_LENGTH;
        }
        return n;
    }

    /**
     * Parses the {@code --tlv} list: comma-separated {@code ts}, {@code cos=DSCP}, {@code dm}, {@code ar=ID:CODE},
     * {@code fut}, {@code hmac}, {@code loc}, or {@code all} (ts, cos=0, dm, fut, and hmac when
     * {@code authenticated}; not loc).
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
        return new StampTlvRequest(ts, cos, dm, id, code, fut, hmac, loc);
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
