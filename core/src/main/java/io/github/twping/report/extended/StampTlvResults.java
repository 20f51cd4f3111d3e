package io.github.twping.report.extended;

import java.util.List;

/**
 * What the RFC 8972 TLVs of a {@code twping --stamp --tlv} run reported (docs/STAMP.md, the TLV report), as
 * plain values for the result outputs: the {@code stamp} object of {@code --json} and of the {@code end} event,
 * and the TLV table of {@code --html}. Built after the session from the session data file and the sender's TLV
 * table; names of methods and synchronisation sources are those of the text report ({@code kernel_software},
 * {@code ntp}, {@code unknown}, ...). A part is null when its TLV was not asked for.
 *
 * @param requested       the TLVs asked for, by their JSON names ({@code timestamp_information}, ...)
 * @param replies         distinct sequence numbers answered
 * @param kernelT1        replies whose t1 was a kernel stamp (our socket)
 * @param kernelT2        replies whose t2 the reflector stamped in its kernel (Timestamp Information)
 * @param kernelT3        replies whose t3 was a kernel stamp (Follow-Up Telemetry, else Timestamp Information)
 * @param kernelT4        replies whose t4 was a kernel stamp (our socket)
 * @param allFourKernel   replies with all four kernel stamps
 * @param senderSync      our clock's synchronisation source as the reflector was told, null when no reply
 * @param timestamps      Timestamp Information (RFC 8972 §4.3)
 * @param followUp        Follow-Up Telemetry (§4.7)
 * @param classOfService  Class of Service (§4.4)
 * @param direct          Direct Measurement (§4.5), also null when no reply carried it
 * @param location        Location (§4.2)
 * @param destinationNode Destination Node Address (RFC 9503 §3)
 * @param returnPath      Return Path (RFC 9503 §4)
 * @param microSession    Micro-session ID (RFC 9534 §3)
 * @param unrecognised    TLVs reflected with the U flag
 * @param malformed       TLVs reflected with the M flag
 * @param integrityFailed TLVs reflected with the I flag
 * @param missing         replies that lacked a TLV we sent (dropped, truncated or zeroed by the reflector)
 */
public record StampTlvResults(List<String> requested, long replies, long kernelT1, long kernelT2, long kernelT3,
                              long kernelT4, long allFourKernel, String senderSync, Timestamps timestamps,
                              FollowUp followUp, ClassOfService classOfService, Direct direct, Location location,
                              DestinationNode destinationNode, ReturnPath returnPath, MicroSession microSession,
                              long unrecognised, long malformed, long integrityFailed, long missing) {
    public StampTlvResults {
        requested = List.copyOf(requested);
    }

    /**
     * @param syncIn        the reflector's synchronisation source for receiving
     * @param syncOut       ... for sending
     * @param methodIn      its last Timestamp In method (t2)
     * @param methodOut     its last Timestamp Out method (the t3 in the reply)
     * @param replies       replies that carried the TLV
     * @param methodChanges how often a method changed between replies
     * @param subTlvs       sub-TLVs after the TLV's fields, over all replies
     */
    public record Timestamps(String syncIn, String syncOut, String methodIn, String methodOut, long replies,
                             long methodChanges, long subTlvs) {
    }

    /**
     * @param kernelT3  replies whose kernel TX stamp a later reply reported
     * @param unmatched reported stamps of replies not seen
     * @param rtt       round-trip time with the kernel t3, null when there is none
     * @param t3Lag     kernel t3 minus the reply's own (user-space) t3, null when there is none
     */
    public record FollowUp(long kernelT3, long unmatched, Range rtt, Range t3Lag) {
    }

    /** Minimum, median and maximum in nanoseconds. */
    public record Range(long minNs, long medianNs, long maxNs) {
    }

    /**
     * @param requestedDscp              the DSCP the replies were to carry
     * @param repliesWithRequestedDscp   replies that arrived with it
     * @param notApplied                 replies whose RP field said the reflector did not apply it
     * @param senderDscp                 the DSCP of our packets ({@code -D})
     * @param reflectorReceivedSenderDscp packets the reflector received with it
     * @param senderEcn                  the ECN of our packets ({@code --ecn})
     * @param reflectorReceivedSenderEcn packets the reflector received with it
     * @param repliesWithSenderEcn       replies that arrived with it
     * @param ecnApplied                 replies whose RPE said the reflector set their ECN to EC1 (our ECN)
     * @param ecnNotApplied              replies whose RPE said it could not
     * @param ecnUnreported              replies with RPE 0: a reflector that knows only RFC 8972's layout
     */
    public record ClassOfService(int requestedDscp, long repliesWithRequestedDscp, long notApplied, int senderDscp,
                                 long reflectorReceivedSenderDscp, int senderEcn, long reflectorReceivedSenderEcn,
                                 long repliesWithSenderEcn, long ecnApplied, long ecnNotApplied,
                                 long ecnUnreported) {
    }

    /**
     * The counters of the highest answered sequence number that carried them.
     *
     * @param seq               that sequence number
     * @param senderSent        packets we had sent (seq + 1)
     * @param reflectorReceived the reflector's R_RxC
     * @param reflectorSent     the reflector's R_TxC
     */
    public record Direct(long seq, long senderSent, long reflectorReceived, long reflectorSent) {
    }

    /**
     * What the reflector saw in the last reply that carried a Location TLV.
     *
     * @param sourceAddress      our address as it arrived, null when not reported
     * @param sourcePort         our port as it arrived, -1 when not reported
     * @param destinationAddress the reflector's address the packets arrived at, null when not reported
     * @param destinationPort    its port, -1 when not reported
     * @param replies            replies that carried the TLV
     */
    public record Location(String sourceAddress, int sourcePort, String destinationAddress, int destinationPort,
                           long replies) {
    }

    /**
     * @param address  the address the TLV named
     * @param replies  replies that carried the TLV
     * @param notLocal of them, those with U set: the reflector said the address is not one of its own
     */
    public record DestinationNode(String address, long replies, long notLocal) {
    }

    /**
     * @param subTlvs the sub-TLVs sent, by their JSON names ({@code control_code_no_reply}, {@code return_address},
     *                ...)
     * @param replies replies that carried the TLV (none when no reply was asked for)
     * @param notUsed of them, those with U or M set: the reflector did not follow the return path
     */
    public record ReturnPath(List<String> subTlvs, long replies, long notUsed) {
        public ReturnPath {
            subTlvs = List.copyOf(subTlvs);
        }
    }

    /**
     * @param senderId    our Sender Micro-session ID
     * @param reflectorId the reflector's member link identifier of the last answered reply, -1 when none
     * @param replies     replies whose TLV the reflector answered
     * @param unanswered  replies whose TLV came back with U or M (no micro-session reflector)
     * @param discarded   replies discarded because their Micro-session IDs were not ours (RFC 9534 §3.2)
     */
    public record MicroSession(int senderId, int reflectorId, long replies, long unanswered, long discarded) {
    }
}
