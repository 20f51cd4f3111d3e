package io.github.twping.stamp;

import java.util.Arrays;
import java.net.InetAddress;
import java.net.UnknownHostException;

import io.github.twping.protocol.StampTlvFlyweight;

/**
 * What the replies' RFC 8972 TLVs told the Session-Sender, per sender sequence number: the reflector's
 * timestamping methods for t2 and t3 (Timestamp Information, §4.3), the DSCP and ECN it received and whether it
 * used the requested DSCP (Class of Service, §4.4), its packet counters (Direct Measurement, §4.5), and the kernel
 * TX stamp of each reply reported in the next reply (Follow-Up Telemetry, §4.7), which replaces the user-space t3.
 *
 * <p>Written by the receiver thread only ({@link StampSenderCodec#openReflector}), in preallocated arrays (nothing
 * allocated per reply); read after the session's threads have been joined. Sequence numbers at or beyond the
 * capacity are counted but not kept.
 */
public final class StampTelemetry {
    /** Largest table: 4 Mi sequence numbers. */
    public static final int MAX_CAPACITY = 1 << 22;

    static final int HAS_TIMESTAMP_INFORMATION = 1;
    static final int HAS_CLASS_OF_SERVICE = 1 << 1;
    static final int HAS_DIRECT_MEASUREMENT = 1 << 2;
    static final int HAS_FOLLOW_UP = 1 << 3;
    static final int SAW_U = 1 << 4;
    static final int SAW_M = 1 << 5;
    static final int SAW_I = 1 << 6;

    private final int capacity;
    private final byte[] flags;
    private final byte[] t2Method;
    private final byte[] t3Method;
    private final byte[] followUpMethod;
    /** The Class of Service values (32 bits: DSCP1 DSCP2 EC2 RPD EC1 RPE Reserved). */
    private final int[] classOfService;
    private final int[] reflectorRx;
    private final int[] reflectorTx;
    private final long[] kernelT3Ntp;
    private final long[] userT3Ntp;
    /** Reflector sequence number -> sender sequence number + 1 (0 = not seen), for the Follow-Up lookups. */
    private final int[] senderOfReflector;

    int syncIn = -1;
    int syncOut = -1;
    long replies;
    long unrecognised;
    long malformed;
    long integrityFailed;
    long missing;
    long followUps;
    long followUpsUnmatched;
    int lastAccessReport = -1;
    // Timestamp Information (§4.3), over all replies: the last methods seen and how many replies carried it
    long timestampInformations;
    int lastMethodIn = -1;
    int lastMethodOut = -1;
    long timestampSubTlvs;
    long methodInChanges;
    long methodOutChanges;
    // Location TLV (§4.2) of the last reply that carried one: what the reflector saw
    long locations;
    int locationSourcePort = -1;
    int locationDestinationPort = -1;
    final byte[] locationSource = new byte[16];
    int locationSourceLength;
    final byte[] locationDestination = new byte[16];
    int locationDestinationLength;
    // RFC 9503 and RFC 9534 TLVs
    long destinationNodeReplies;
    long destinationNotLocal;
    long returnPathReplies;
    long returnPathNotUsed;
    long microSessionReplies;
    int microSessionReflector = -1;
    long microSessionDiscarded;
    long microSessionUnanswered;

    /**
     * @param packetCount packets the session sends
     * @param tlvs        the TLVs asked for (arrays only for those)
     */
    public StampTelemetry(long packetCount, StampTlvRequest tlvs) {
        capacity = (int) Math.max(0, Math.min(packetCount, MAX_CAPACITY));
        flags = new byte[capacity];
        t2Method = tlvs.timestampInformation() ? new byte[capacity] : new byte[0];
        t3Method = tlvs.timestampInformation() ? new byte[capacity] : new byte[0];
        classOfService = tlvs.classOfServiceDscp() >= 0 ? new int[capacity] : new int[0];
        reflectorRx = tlvs.directMeasurement() ? new int[capacity] : new int[0];
        reflectorTx = tlvs.directMeasurement() ? new int[capacity] : new int[0];
        boolean fut = tlvs.followUpTelemetry();
        followUpMethod = fut ? new byte[capacity] : new byte[0];
        kernelT3Ntp = fut ? new long[capacity] : new long[0];
        userT3Ntp = fut ? new long[capacity] : new long[0];
        senderOfReflector = fut ? new int[capacity] : new int[0];
    }

    /** @return sequence numbers kept */
    public int capacity() {
        return capacity;
    }

    void clear() {
        Arrays.fill(flags, (byte) 0);
    }

    boolean kept(long seq) {
        return seq >= 0 && seq < capacity;
    }

    void mark(int seq, int bit) {
        flags[seq] |= (byte) bit;
    }

    void timestampInformation(int seq, int syncIn, int methodIn, int syncOut, int methodOut) {
        this.syncIn = syncIn;
        this.syncOut = syncOut;
        t2Method[seq] = (byte) methodIn;
        t3Method[seq] = (byte) methodOut;
        flags[seq] |= HAS_TIMESTAMP_INFORMATION;
    }

    /** A Timestamp Information TLV of any reply (kept or not), with {@code subTlvs} sub-TLVs after its fields. */
    void timestampInformationSeen(int syncIn, int methodIn, int syncOut, int methodOut, int subTlvs) {
        this.syncIn = syncIn;
        this.syncOut = syncOut;
        if (lastMethodIn >= 0 && methodIn != lastMethodIn) {
            methodInChanges++;
        }
        if (lastMethodOut >= 0 && methodOut != lastMethodOut) {
            methodOutChanges++;
        }
        lastMethodIn = methodIn;
        lastMethodOut = methodOut;
        timestampInformations++;
        timestampSubTlvs += subTlvs;
    }

    /** @return replies that carried a Timestamp Information TLV */
    public long timestampInformations() {
        return timestampInformations;
    }

    /** @return the reflector's last Timestamp In method ({@link StampTlv} METHOD_ codes), -1 when never reported */
    public int lastMethodIn() {
        return lastMethodIn;
    }

    /** @return the reflector's last Timestamp Out method, -1 when never reported */
    public int lastMethodOut() {
        return lastMethodOut;
    }

    /** @return sub-TLVs the reflector put after the Timestamp Information fields, over all replies */
    public long timestampSubTlvs() {
        return timestampSubTlvs;
    }

    /** @return how often the reflector's Timestamp In / Out method changed between replies */
    public long methodChanges() {
        return methodInChanges + methodOutChanges;
    }

    void classOfService(int seq, int value) {
        classOfService[seq] = value;
        flags[seq] |= HAS_CLASS_OF_SERVICE;
    }

    void directMeasurement(int seq, int rx, int tx) {
        reflectorRx[seq] = rx;
        reflectorTx[seq] = tx;
        flags[seq] |= HAS_DIRECT_MEASUREMENT;
    }

    /**
     * A Location TLV, {@code tlv} on it: the ports and the address sub-TLVs the reflector filled (U and M clear); the
     * others are left as they were. {@code sub} is the caller's spare flyweight.
     */
    void location(StampTlvFlyweight tlv, StampTlvFlyweight sub) {
        locations++;
        locationDestinationPort = tlv.locationDestinationPort();
        locationSourcePort = tlv.locationSourcePort();
        long end = tlv.next();
        for (long at = tlv.subTlvsOffset(); StampTlvFlyweight.headerFits(at, end); at = sub.next()) {
            sub.wrap(tlv.segment(), at);
            if (!sub.fits(end)) {
                return;
            }
            int flags = sub.flags();
            int type = sub.type();
            int n = sub.length();
            boolean filled = (flags & (StampTlv.FLAG_U | StampTlv.FLAG_M)) == 0;
            boolean v4 = type == StampTlv.SUB_SOURCE_IPV4 || type == StampTlv.SUB_DESTINATION_IPV4;
            boolean v6 = type == StampTlv.SUB_SOURCE_IPV6 || type == StampTlv.SUB_DESTINATION_IPV6;
            if (filled && ((v4 && n == 4) || (v6 && n == 16))) {
                boolean source = type == StampTlv.SUB_SOURCE_IPV4 || type == StampTlv.SUB_SOURCE_IPV6;
                sub.readValue(source ? locationSource : locationDestination, n);
                if (source) {
                    locationSourceLength = n;
                } else {
                    locationDestinationLength = n;
                }
            }
        }
    }

    /** A Destination Node Address TLV came back, with U set ({@code notLocal}: not the reflector's) or not. */
    void destinationNode(boolean notLocal) {
        destinationNodeReplies++;
        if (notLocal) {
            destinationNotLocal++;
        }
    }

    /** A Return Path TLV came back with {@code flags}: U means the reflector did not follow it. */
    void returnPath(int flags) {
        returnPathReplies++;
        if ((flags & (StampTlv.FLAG_U | StampTlv.FLAG_M)) != 0) {
            returnPathNotUsed++;
        }
    }

    /** A Micro-session ID TLV came back answered, with the reflector's member link {@code reflectorId}. */
    void microSession(int reflectorId) {
        microSessionReplies++;
        microSessionReflector = reflectorId;
    }

    /** @return replies that carried the Destination Node Address TLV */
    public long destinationNodeReplies() {
        return destinationNodeReplies;
    }

    /** @return of them, those whose U flag said the address is not the reflector's (RFC 9503 §3) */
    public long destinationNotLocal() {
        return destinationNotLocal;
    }

    /** @return replies that carried the Return Path TLV */
    public long returnPathReplies() {
        return returnPathReplies;
    }

    /** @return of them, those whose U or M flag said the reflector did not use the return path (RFC 9503 §4) */
    public long returnPathNotUsed() {
        return returnPathNotUsed;
    }

    /** @return replies whose Micro-session ID TLV the reflector answered (RFC 9534 §3.2) */
    public long microSessionReplies() {
        return microSessionReplies;
    }

    /** @return the reflector's member link identifier of the last answered reply, -1 when none */
    public int microSessionReflector() {
        return microSessionReflector;
    }

    /** @return replies discarded because their Micro-session ID was not ours (RFC 9534 §3.2) */
    public long microSessionDiscarded() {
        return microSessionDiscarded;
    }

    /** @return replies whose Micro-session ID TLV came back with U or M (no micro-session reflector) */
    public long microSessionUnanswered() {
        return microSessionUnanswered;
    }

    /** @return replies that carried a Location TLV */
    public long locations() {
        return locations;
    }

    /** @return the UDP source port the reflector saw (Location TLV), -1 when never reported */
    public int locationSourcePort() {
        return locationSourcePort;
    }

    /** @return the UDP destination port the reflector saw (Location TLV), -1 when never reported */
    public int locationDestinationPort() {
        return locationDestinationPort;
    }

    /** @return the source address the reflector saw (4 or 16 octets), null when not reported */
    public InetAddress locationSource() {
        return address(locationSource, locationSourceLength);
    }

    /** @return the destination address the reflector saw (4 or 16 octets), null when not reported */
    public InetAddress locationDestination() {
        return address(locationDestination, locationDestinationLength);
    }

    private static InetAddress address(byte[] bytes, int length) {
        if (length != 4 && length != 16) {
            return null;
        }
        try {
            return InetAddress.getByAddress(Arrays.copyOf(bytes, length));
        } catch (UnknownHostException e) {
            return null;                                   // not reached: 4 or 16 octets
        }
    }

    /** The reply to {@code seq} carried reflector sequence {@code reflectorSeq} and user-space t3 {@code t3Ntp}. */
    void reply(int seq, long reflectorSeq, long t3Ntp) {
        if (userT3Ntp.length > 0) {
            userT3Ntp[seq] = t3Ntp;
            if (reflectorSeq >= 0 && reflectorSeq < capacity) {
                senderOfReflector[(int) reflectorSeq] = seq + 1;
            }
        }
    }

    /** A Follow-Up Telemetry TLV: reflector sequence {@code reflectorSeq} left at {@code kernelNtp}. */
    void followUp(long reflectorSeq, long kernelNtp, int method) {
        if (kernelNtp == 0) {
            return;                                        // the reflector had no stamp of a previous reply
        }
        int s = reflectorSeq >= 0 && reflectorSeq < capacity ? senderOfReflector[(int) reflectorSeq] - 1 : -1;
        if (s < 0) {
            followUpsUnmatched++;
            return;
        }
        kernelT3Ntp[s] = kernelNtp;
        followUpMethod[s] = (byte) method;
        flags[s] |= HAS_FOLLOW_UP;
        followUps++;
    }

    /** @return true when the reply to {@code seq} carried the Timestamp Information TLV */
    public boolean hasTimestampInformation(long seq) {
        return kept(seq) && (flags[(int) seq] & HAS_TIMESTAMP_INFORMATION) != 0;
    }

    /** @return the reflector's method for t2 (its receive stamp), {@link StampTlv} METHOD_ codes, 0 = unknown */
    public int t2Method(long seq) {
        return hasTimestampInformation(seq) ? t2Method[(int) seq] & 0xFF : 0;
    }

    /**
     * @return the method of the best t3 known: the Follow-Up Telemetry's kernel stamp when one arrived, else the
     * Timestamp Information's method for the reply's timestamp field, 0 = unknown
     */
    public int t3Method(long seq) {
        if (hasFollowUp(seq)) {
            return followUpMethod[(int) seq] & 0xFF;
        }
        return hasTimestampInformation(seq) ? t3Method[(int) seq] & 0xFF : 0;
    }

    /**
     * @return the Timestamp Information's method for the t3 carried in the reply to {@code seq} itself (not the
     * Follow-Up Telemetry's, which a later reply brings), 0 = unknown; what the results writer thread reads for a
     * record the data file has made visible
     */
    public int timestampOutMethod(long seq) {
        return hasTimestampInformation(seq) ? t3Method[(int) seq] & 0xFF : 0;
    }

    /** @return true when a later reply reported the kernel TX stamp of the reply to {@code seq} */
    public boolean hasFollowUp(long seq) {
        return kept(seq) && (flags[(int) seq] & HAS_FOLLOW_UP) != 0;
    }

    /** @return the reflector's kernel TX stamp of the reply to {@code seq} (NTP), 0 when unknown */
    public long kernelT3Ntp(long seq) {
        return hasFollowUp(seq) ? kernelT3Ntp[(int) seq] : 0;
    }

    /** @return the reply's own (user-space) t3 as received (NTP), 0 when not kept */
    public long userT3Ntp(long seq) {
        return kept(seq) && userT3Ntp.length > 0 ? userT3Ntp[(int) seq] : 0;
    }

    /** @return true when the reply to {@code seq} carried the Class of Service TLV */
    public boolean hasClassOfService(long seq) {
        return kept(seq) && (flags[(int) seq] & HAS_CLASS_OF_SERVICE) != 0;
    }

    /** @return the DSCP the reflector received (DSCP2), -1 when unknown */
    public int receivedDscp(long seq) {
        return hasClassOfService(seq) ? (classOfService[(int) seq] >>> 20) & 0x3F : -1;
    }

    /** @return the ECN the reflector received, -1 when unknown */
    public int receivedEcn(long seq) {
        return hasClassOfService(seq) ? (classOfService[(int) seq] >>> 18) & 3 : -1;
    }

    /** @return the RP field: 0 = the reply carries the requested DSCP, else not; -1 when unknown */
    public int reversePath(long seq) {
        return hasClassOfService(seq) ? (classOfService[(int) seq] >>> 16) & 3 : -1;
    }

    /**
     * @return the RPE field (draft-ietf-ippm-stamp-cos-ecn §3.1): 3 = the reply's ECN is EC1, 2 = the reflector
     *         could not set it, 0 = a reflector that does not know the field; -1 when unknown
     */
    public int reversePathEcn(long seq) {
        return hasClassOfService(seq) ? (classOfService[(int) seq] >>> 12) & 3 : -1;
    }

    /** @return true when the reply to {@code seq} carried Direct Measurement */
    public boolean hasDirectMeasurement(long seq) {
        return kept(seq) && (flags[(int) seq] & HAS_DIRECT_MEASUREMENT) != 0;
    }

    /** @return the reflector's R_RxC for {@code seq} (unsigned 32-bit), -1 when unknown */
    public long reflectorRx(long seq) {
        return hasDirectMeasurement(seq) ? reflectorRx[(int) seq] & 0xFFFF_FFFFL : -1;
    }

    /** @return the reflector's R_TxC for {@code seq} (unsigned 32-bit), -1 when unknown */
    public long reflectorTx(long seq) {
        return hasDirectMeasurement(seq) ? reflectorTx[(int) seq] & 0xFFFF_FFFFL : -1;
    }

    /** @return the TLV flags seen on the reply to {@code seq}: U, M, I as "UMI" letters or "-" */
    public String flagLetters(long seq) {
        if (!kept(seq)) {
            return "---";
        }
        int f = flags[(int) seq];
        return ((f & SAW_U) != 0 ? "U" : "-") + ((f & SAW_M) != 0 ? "M" : "-") + ((f & SAW_I) != 0 ? "I" : "-");
    }

    /** @return the reflector's synchronization source for receiving (Sync Src In), -1 when never reported */
    public int syncIn() {
        return syncIn;
    }

    /** @return the reflector's synchronization source for sending (Sync Src Out), -1 when never reported */
    public int syncOut() {
        return syncOut;
    }

    /** @return replies whose TLVs were read */
    public long replies() {
        return replies;
    }

    /** @return TLVs the reflector reflected with U (not recognised) */
    public long unrecognised() {
        return unrecognised;
    }

    /** @return TLVs the reflector reflected with M (malformed) */
    public long malformed() {
        return malformed;
    }

    /** @return TLVs the reflector reflected with I (our HMAC TLV failed its check) */
    public long integrityFailed() {
        return integrityFailed;
    }

    /**
     * @return replies that lacked at least one TLV we sent (the reflector dropped, truncated or zeroed it), replies
     * of the base size to requests with TLVs included
     */
    public long missing() {
        return missing;
    }

    /** @return Follow-Up Telemetry stamps matched to an earlier reply */
    public long followUps() {
        return followUps;
    }

    /** @return Follow-Up Telemetry stamps of replies not seen (lost or beyond the capacity) */
    public long followUpsUnmatched() {
        return followUpsUnmatched;
    }
}
