package io.github.twping.ffm;

/** Receives TX timestamps drained from a socket's error queue by {@link UdpSocket#pollTxTimestamps}. */
@FunctionalInterface
public interface TxTimestampHandler {
    /**
     * A packet left the host (SCM_TSTAMP_SND).
     *
     * @param packetId the send's id: the value of {@link UdpSocket#sentPacketCount()} just before it was sent
     * @param epochNs  the kernel's timestamp (software: CLOCK_REALTIME; hardware: the NIC clock)
     * @param hardware true for a NIC timestamp
     */
    void onTxTimestamp(long packetId, long epochNs, boolean hardware);

    /** A packet entered the queueing discipline (SCM_TSTAMP_SCHED); only with {@code txScheduledTimestamps(true)}. */
    default void onTxScheduled(long packetId, long epochNs) {
    }
}
