package io.github.twping.testing.perf;

import io.github.twping.ffm.Timestamping;

/**
 * One measured session: which client socket, how fast, how many packets, and its bounds.
 *
 * @param label              row label in the tables
 * @param timestamping       kernel timestamping on the client's test socket
 * @param forceNio           use the NIO fallback socket instead of FFM
 * @param ratePps            packets per second (fixed interval 1/rate)
 * @param packetCount        packets to send
 * @param spinNs             sender busy-wait window before each send (core caps it at a quarter interval)
 * @param lossTimeoutSeconds the session's loss timeout L
 * @param deadlineNs         wall-time limit of the session after its start; it is cancelled beyond
 */
public record RunConfig(String label, Timestamping timestamping, boolean forceNio, double ratePps,
                        long packetCount, long spinNs, double lossTimeoutSeconds, long deadlineNs) {

    /** The fixed send interval, seconds. */
    public double intervalSeconds() {
        return 1.0 / ratePps;
    }

    /** The nominal sending time, seconds (packets × interval). */
    public double nominalSendSeconds() {
        return packetCount / ratePps;
    }
}
