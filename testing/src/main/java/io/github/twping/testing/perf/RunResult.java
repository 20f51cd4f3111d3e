package io.github.twping.testing.perf;

import org.HdrHistogram.Histogram;

/**
 * What one measured session produced.
 *
 * @param config         the session's configuration
 * @param nativeSocket   the client's test socket was the FFM one
 * @param sent           packets sent
 * @param skipped        packets not sent (more than L behind schedule)
 * @param records        records in the session data file
 * @param lost           lost records
 * @param kernelRxStamps replies stamped by the kernel on arrival
 * @param kernelTxStamps kernel TX timestamps delivered
 * @param lateReplies    replies that arrived after their packet was recorded lost (after L)
 * @param clientDrops    datagrams the kernel dropped at the client's test socket (full receive buffer), -1 unknown
 * @param reflectorDrops the same at the reflector's test socket (read before Stop-Sessions), -1 unknown
 * @param rtt            round-trip times of the received records
 * @param latenessNs     send lateness of the real sender
 * @param clientCpuNs    CPU time of the sender and receiver threads
 * @param processCpuNs   CPU time of the process during the session (reflector, GC and JIT included)
 * @param wallNs         wall time from starting the session to its end (start delay and L included)
 * @param outcome        how the session ended
 * @param timedOut       the deadline was reached and the session cancelled
 */
public record RunResult(RunConfig config, boolean nativeSocket, long sent, long skipped, long records, long lost,
                        long kernelRxStamps, long kernelTxStamps, long lateReplies, long clientDrops,
                        long reflectorDrops, RttStatistics rtt, Histogram latenessNs,
                        long clientCpuNs, long processCpuNs, long wallNs, String outcome, boolean timedOut) {

    /** Client CPU per sent packet, ns (0 when nothing was sent). */
    public long clientCpuPerPacketNs() {
        return perPacket(clientCpuNs, sent);
    }

    /** Process CPU per sent packet, ns (0 when nothing was sent). */
    public long processCpuPerPacketNs() {
        return perPacket(processCpuNs, sent);
    }

    /** {@code total / packets}, rounded down; 0 for no packets or an unknown (negative) total. */
    public static long perPacket(long totalNs, long packets) {
        return packets <= 0 || totalNs < 0 ? 0 : totalNs / packets;
    }
}
