package io.github.twping.stamp;

import static io.github.twping.protocol.StampTlvLayout.FLAG_I;
import static io.github.twping.protocol.StampTlvLayout.FLAG_M;
import static io.github.twping.protocol.StampTlvLayout.FLAG_U;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.TimestampSource;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.protocol.StampTlvFlyweight;
import io.github.twping.protocol.StampTlvLayout;
import io.github.twping.session.ReflectorClock;

/**
 * The STAMP Session-Reflector's answers to the TLVs of one request (RFC 8972 §4, RFC 9503, RFC 9534), written into the
 * reply (a copy of the request's TLVs): a recognised TLV with a valid length gets U, M and I cleared and its
 * reflector fields filled; a recognised TLV with a length invalid for its type gets M set and is copied; an unknown
 * TLV (or an HMAC TLV this reflector has no key for) gets U set and its value copied untouched; a TLV whose length
 * runs past the datagram gets M set and ends the walk, as do trailing bytes too short for a header. An HMAC TLV
 * (§4.8) is verified over the request's Sequence Number and preceding TLVs (I set on every TLV when it fails); the
 * reply's is signed later, by {@link StampReplySigner}, once the TOS decision has set its last bit.
 *
 * <p>Only the U, M and I flags of RFC 8972 §4 are set in a reply; the five unassigned flag bits go back zero,
 * whatever the request carried.
 *
 * <p>What the extensions get on a host that forwards by its routing table (docs/STAMP.md says the same):
 * <ul>
 * <li>Destination Node Address (RFC 9503 §3): U clear when the address is one of this host's (the request's own
 *     destination, the bound address, or an interface address read at start), else U set.</li>
 * <li>Return Path (RFC 9503 §4), the first one only (later ones get U): Control Code "No Reply Requested" is honoured
 *     (no reply is sent); "Reply Requested on the Same Link" is answered as honoured, as the reply goes back to the
 *     request's source address, and the other sub-TLVs are then ignored; a Return Address equal to the request's
 *     source is honoured, any other gets U (no third-party replies); SR-MPLS label stacks and SRv6 segment lists get
 *     U (a UDP socket cannot push them). Any sub-TLV with U sets U on the Return Path TLV, which then means the reply
 *     took the ordinary path; wrong sub-TLV lengths get M on the sub-TLV and the TLV.</li>
 * <li>Micro-session ID (RFC 9534 §3.2): with a member link configured ({@link StampReflectorSpec#memberLink()}) a
 *     request naming another Reflector Micro-session ID is discarded, else the reflector's ID is filled in and the
 *     sender's kept; without one the TLV gets U (this reflector is no micro-session reflector).</li>
 * </ul>
 * Reflector thread only; nothing is allocated per packet.
 */
final class StampTlvResponder {
    private final StampReflectorSpec spec;
    private final ReflectorClock clock;
    private final UdpSocket socket;
    private final MemorySegment request;
    private final MemorySegment reply;
    private final StampReplySigner signer;
    private final PeerTable peers;
    private final ReplyTxStamps txStamps;
    private final StampTlvFlyweight tlv = new StampTlvFlyweight();
    private final StampTlvFlyweight sub = new StampTlvFlyweight();
    /** The request's source address (filled by the reflector per packet), its own array. */
    private final byte[] source;
    private final byte[] destination = new byte[16];
    /** The bound address (Location TLV destination), or null when bound to a wildcard address. */
    private final byte[] localAddressBytes;
    /** This host's interface addresses at start (Destination Node Address TLV). */
    private final byte[][] localAddresses;
    private final int localPort;

    /** Read per Timestamp Information TLV (a plain load on x86); set by any thread. */
    volatile boolean ptpEvidence;
    /** The TAI-UTC offset of PTP-format Follow-Up timestamps ({@link StampReflector#taiOffset}). */
    int taiSeconds;

    // per request
    private ReceivedPacket meta;
    private int hmacTlvAt = -1;
    private int tlvEnd;
    private long cosAt;
    private int pendingTos = -1;
    private boolean returnPathSeen;
    private boolean suppressed;
    // the reply TOS in force
    private int replyTos = -1;
    private int defaultTos;

    // counters: reflector thread only
    long malformedTlvs;
    long unknownTlvs;
    long badTlvHmac;
    long followUpsReported;
    long classOfServiceApplied;
    long classOfServiceRefused;
    long accessReports;
    volatile int lastAccessReport = -1;
    long destinationNotLocal;
    long returnPathNoReply;
    long returnPathNotUsed;
    long microSessionMismatch;

    StampTlvResponder(StampReflectorSpec spec, ReflectorClock clock, UdpSocket socket, MemorySegment request,
                      MemorySegment reply, StampReplySigner signer, PeerTable peers, ReplyTxStamps txStamps,
                      byte[] source, byte[] localAddressBytes, byte[][] localAddresses, int localPort) {
        this.spec = spec;
        this.clock = clock;
        this.socket = socket;
        this.request = request;
        this.reply = reply;
        this.signer = signer;
        this.peers = peers;
        this.txStamps = txStamps;
        this.source = source;
        this.localAddressBytes = localAddressBytes;
        this.localAddresses = localAddresses;
        this.localPort = localPort;
    }

    /**
     * Answers the TLVs of the reply in {@code [from, end)}.
     *
     * @return false when the request must get no reply: its Return Path asked for none (RFC 9503 §4.1.1), or its
     *         Micro-session ID names another member link (RFC 9534 §3.2)
     */
    boolean process(int from, int end, int peer, ReceivedPacket meta) throws IOException {
        this.meta = meta;
        hmacTlvAt = -1;
        tlvEnd = end;
        returnPathSeen = false;
        suppressed = false;
        int at = from;
        while (at < end) {
            if (!StampTlvFlyweight.headerFits(at, end)) {
                malformedTlvs++;
                tlvEnd = at;
                break;                                    // no room for the flags of a header: left as copied
            }
            tlv.wrap(reply, at);
            int flags;
            int type = tlv.type();
            int length = tlv.length();
            if (!tlv.fits(end)) {
                tlv.flags(FLAG_M);
                malformedTlvs++;
                tlvEnd = at;
                break;
            }
            // U, M and I are the reflector's answer; the other five bits are unassigned and go back zero
            flags = 0;
            if (!StampTlvLayout.known(type) || (type == StampTlvLayout.TYPE_HMAC && !signer.hasTlvKey())) {
                flags |= FLAG_U;
                unknownTlvs++;
            } else if (!StampTlv.validLength(type, length)) {
                flags |= FLAG_M;
                malformedTlvs++;
            } else {
                int answered = answer(type, peer);
                if ((answered & FLAG_M) != 0) {
                    malformedTlvs++;
                }
                flags |= answered;
                if (type == StampTlvLayout.TYPE_HMAC) {
                    hmacTlvAt = at;
                }
            }
            tlv.wrap(reply, at).flags(flags);
            at = (int) tlv.next();
        }
        if (hmacTlvAt >= 0 && !signer.verifyTlvs(request, hmacTlvAt)) {
            badTlvHmac++;
            for (int t = from; StampTlvFlyweight.headerFits(t, tlvEnd); ) {
                tlv.wrap(reply, t).flags(tlv.flags() | FLAG_I);
                t = (int) tlv.next();
            }
        }
        return !suppressed;
    }

    /** @return the reply's HMAC TLV found by the last {@link #process}, or -1 */
    int hmacTlvAt() {
        return hmacTlvAt;
    }

    /** Starts a request: no Class of Service asked for, no HMAC TLV, until {@link #process} finds them. */
    void begin() {
        pendingTos = -1;
        hmacTlvAt = -1;
    }

    /**
     * Fills the reflector's fields of the recognised, well-formed TLV {@link #tlv} is on.
     *
     * @return the flags (U, M) the answer adds to the TLV
     */
    private int answer(int type, int peer) throws IOException {
        switch (type) {
            case StampTlvLayout.TYPE_LOCATION -> {
                return location();
            }
            case StampTlvLayout.TYPE_TIMESTAMP_INFORMATION -> {
                int sync = ClockSyncSource.syncSource(ptpEvidence, clock.errorEstimate());
                // the send timestamp is read in user space, after the TLVs are final
                tlv.timestampInformation(sync, method(meta.timestampSource()), sync, StampTlv.METHOD_USER_SPACE);
            }
            case StampTlvLayout.TYPE_CLASS_OF_SERVICE -> {
                int dscp1 = tlv.dscp1();
                int ec1 = tlv.ec1();
                int tos = meta.tos();
                int received = tos < 0 ? 0 : tos;
                pendingTos = dscp1 << 2 | ec1;              // the reply: DSCP1 and EC1 (draft-ietf-ippm-stamp-cos-ecn)
                cosAt = tlv.offset();
                // DSCP2 and EC2 as received (RFC 8972 erratum 8199); RPD and RPE changed later if refused
                tlv.classOfService(dscp1, received >> 2, received & 3, 0, ec1, StampTlvLayout.RPE_SET);
            }
            case StampTlvLayout.TYPE_DIRECT_MEASUREMENT -> {
                long rx = peer >= 0 ? peers.rxCount[peer] : peers.totalRx;
                long tx = (peer >= 0 ? peers.txCount[peer] : peers.totalTx) + 1;   // this reply included
                tlv.directMeasurementReflector(rx, tx);
            }
            case StampTlvLayout.TYPE_ACCESS_REPORT -> {
                accessReports++;
                lastAccessReport = tlv.accessReportWord();
            }
            case StampTlvLayout.TYPE_FOLLOW_UP_TELEMETRY -> followUp(peer);
            case StampTlvLayout.TYPE_DESTINATION_NODE_ADDRESS -> {
                if (!isLocal(tlv.length())) {
                    destinationNotLocal++;
                    return FLAG_U;
                }
            }
            case StampTlvLayout.TYPE_RETURN_PATH -> {
                return returnPath();
            }
            case StampTlvLayout.TYPE_MICRO_SESSION_ID -> {
                return microSession();
            }
            default -> {
                // Extra Padding: copied; HMAC: recomputed by the signer
            }
        }
        return 0;
    }

    private void followUp(int peer) throws IOException {
        if (peer >= 0) {
            peers.followUp[peer] = true;                  // this reply and the session's later ones are stamped
            txStamps.drainFor(peer);                      // the session's previous reply may have no stamp read yet
        }
        if (peer >= 0 && peers.lastTxSeq[peer] >= 0) {
            tlv.followUp(peers.lastTxSeq[peer], spec.format().fromEpochNanos(
                    clock.adjustEpochNs(peers.lastTxEpochNs[peer]), taiSeconds),
                    peers.lastTxHardware[peer] ? StampTlv.METHOD_HW_ASSIST : StampTlv.METHOD_SW_LOCAL);
            followUpsReported++;
        } else {
            tlv.followUp(0, 0, 0);
        }
    }

    /**
     * The Location TLV (RFC 8972 §4.2): Destination Port and Source Port of the received packet, then each sub-TLV
     * filled: the source address (sub-TLV 4 or 6, the received packet's family), the destination address (3 or 5:
     * the request's destination as the kernel reports it, else the address this reflector is bound to; when neither
     * is known, left zero with U set). A sub-TLV of the other address family, a MAC or EUI-64 sub-TLV (a UDP socket
     * does not see them) or an unknown type gets U; a sub-TLV of a wrong length gets M, as does the Location TLV
     * itself; a sub-TLV running past the value ends the walk with M on the Location TLV.
     *
     * @return M when a sub-TLV was malformed, else 0
     */
    private int location() {
        tlv.locationPorts(localPort, meta.sourcePort());
        int addressLength = meta.sourceAddressLength();
        long end = tlv.next();
        int flags = 0;
        for (long at = tlv.subTlvsOffset(); at < end; ) {
            if (!StampTlvFlyweight.headerFits(at, end)) {
                return flags | FLAG_M;
            }
            sub.wrap(reply, at);
            if (!sub.fits(end)) {
                sub.flags(FLAG_M);
                return flags | FLAG_M;
            }
            int subType = sub.type();
            int want = switch (subType) {
                case StampTlvLayout.SUB_DESTINATION_IPV4, StampTlvLayout.SUB_SOURCE_IPV4 -> StampTlvLayout.IPV4_LENGTH;
                case StampTlvLayout.SUB_DESTINATION_IPV6, StampTlvLayout.SUB_SOURCE_IPV6 -> StampTlvLayout.IPV6_LENGTH;
                default -> -1;
            };
            int subFlags;
            if (want < 0) {
                subFlags = FLAG_U;
            } else if (sub.length() != want) {
                subFlags = FLAG_M;
                flags |= FLAG_M;
            } else if (want != addressLength) {
                subFlags = FLAG_U;                  // the other family than the packet's
            } else if (subType == StampTlvLayout.SUB_SOURCE_IPV4 || subType == StampTlvLayout.SUB_SOURCE_IPV6) {
                sub.writeValue(source, want);
                subFlags = 0;
            } else if (meta.destinationAddressLength() == want) {
                meta.destinationAddressBytes(destination, 0);   // the request's destination (IP_PKTINFO)
                sub.writeValue(destination, want);
                subFlags = 0;
            } else if (localAddressBytes != null && localAddressBytes.length == want) {
                sub.writeValue(localAddressBytes, want);
                subFlags = 0;
            } else {
                subFlags = FLAG_U;                  // not known: no IP_PKTINFO and a wildcard bind
            }
            sub.flags(subFlags);
            at = sub.next();
        }
        return flags;
    }

    /** @return true when the Destination Node Address of {@code length} octets is one of this host's addresses */
    private boolean isLocal(int length) {
        if (meta.destinationAddressLength() == length) {
            meta.destinationAddressBytes(destination, 0);
            if (tlv.valueEquals(destination, length)) {
                return true;
            }
        }
        if (localAddressBytes != null && localAddressBytes.length == length && tlv.valueEquals(localAddressBytes,
                length)) {
            return true;
        }
        for (byte[] address : localAddresses) {
            if (address.length == length && tlv.valueEquals(address, length)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The Return Path TLV (RFC 9503 §4): only the first one of a request is processed; see the class comment for what
     * is honoured.
     *
     * @return the flags for the Return Path TLV
     */
    private int returnPath() {
        if (returnPathSeen) {
            return FLAG_U;                                // RFC 9503 §4: later Return Path TLVs are ignored
        }
        returnPathSeen = true;
        long end = tlv.next();
        // a Control Code makes the reflector ignore every other sub-TLV (§4.1.1)
        for (long at = tlv.valueOffset(); StampTlvFlyweight.headerFits(at, end); at = sub.next()) {
            sub.wrap(reply, at);
            if (!sub.fits(end)) {
                break;
            }
            if (sub.type() == StampTlvLayout.SUB_RETURN_CONTROL_CODE
                    && sub.length() == StampTlvLayout.CONTROL_CODE_LENGTH) {
                sub.flags(0);
                if ((sub.controlCodeFlags() & 1) == StampTlvLayout.CONTROL_CODE_NO_REPLY) {
                    returnPathNoReply++;
                    suppressed = true;
                }
                return 0;
            }
        }
        int flags = 0;
        int addressLength = meta.sourceAddressLength();
        for (long at = tlv.valueOffset(); at < end; at = sub.next()) {
            if (!StampTlvFlyweight.headerFits(at, end)) {
                flags |= FLAG_M;
                break;
            }
            sub.wrap(reply, at);
            if (!sub.fits(end)) {
                sub.flags(FLAG_M);
                flags |= FLAG_M;
                break;
            }
            int length = sub.length();
            int subFlags = switch (sub.type()) {
                case StampTlvLayout.SUB_RETURN_CONTROL_CODE -> FLAG_M;           // a valid one returned above
                case StampTlvLayout.SUB_RETURN_ADDRESS -> length != StampTlvLayout.IPV4_LENGTH
                        && length != StampTlvLayout.IPV6_LENGTH ? FLAG_M
                        : length == addressLength && sub.valueEquals(source, length) ? 0 : FLAG_U;
                case StampTlvLayout.SUB_RETURN_SR_MPLS -> length == 0
                        || length % StampTlvLayout.MPLS_ENTRY_LENGTH != 0 ? FLAG_M : FLAG_U;
                case StampTlvLayout.SUB_RETURN_SRV6 -> length == 0
                        || length % StampTlvLayout.SRV6_SEGMENT_LENGTH != 0 ? FLAG_M : FLAG_U;
                default -> FLAG_U;
            };
            sub.flags(subFlags);
            flags |= subFlags;
        }
        if ((flags & (FLAG_U | FLAG_M)) != 0) {
            returnPathNotUsed++;
        }
        return flags;
    }

    /** The Micro-session ID TLV (RFC 9534 §3.2); @return the flags for it. */
    private int microSession() {
        int memberLink = spec.memberLink();
        if (memberLink == 0) {
            return FLAG_U;                                // no member link configured: not a micro-session reflector
        }
        int asked = tlv.reflectorMicroSessionId();
        if (asked != 0 && asked != memberLink) {
            microSessionMismatch++;
            suppressed = true;                            // another member link's packet: discarded
            return 0;
        }
        tlv.microSession(tlv.senderMicroSessionId(), memberLink);
        return 0;
    }

    private static int method(TimestampSource source) {
        return switch (source) {
            case KERNEL_HARDWARE -> StampTlv.METHOD_HW_ASSIST;
            case KERNEL_SOFTWARE -> StampTlv.METHOD_SW_LOCAL;
            case USER -> StampTlv.METHOD_USER_SPACE;
        };
    }

    /**
     * Puts the reply's TOS in force: the Class of Service DSCP1 when the request asked for one, else the reflector's
     * own (a setsockopt only when it changes); a refusal sets RP in the reply's Class of Service TLV. Made before the
     * HMAC TLV is signed, as it changes a TLV.
     */
    void applyReplyTos() throws IOException {
        int want = pendingTos >= 0 ? pendingTos : defaultTos;
        if (want != replyTos && (pendingTos >= 0 || replyTos >= 0)) {
            if (socket.trafficClass(want)) {
                replyTos = want;
            }
        }
        if (pendingTos >= 0) {
            if (replyTos == want) {
                classOfServiceApplied++;
            } else {
                classOfServiceRefused++;
                tlv.wrap(reply, cosAt).classOfServiceRefused();
            }
        }
    }
}
