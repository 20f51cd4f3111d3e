package io.github.twping.stats.exact;

import java.util.Arrays;

import io.github.twping.datafile.RecordSources;

/**
 * What {@link ExactStatistics} accumulated over a range of records (the whole session, or one interval):
 * the delay distributions, counts, hop counts, reply DSCPs, clock state and timestamp sources. Mutable;
 * owned by the engine's thread.
 */
public final class ExactSummary {
    /** Reply DSCP index for "not known". */
    public static final int DSCP_UNKNOWN = 64;

    final DelayDistribution roundTrip = new DelayDistribution();
    final DelayDistribution forward = new DelayDistribution();
    final DelayDistribution back = new DelayDistribution();
    final DelayDistribution processing = new DelayDistribution();
    final DelayDistribution ipdvRoundTrip = new DelayDistribution();
    final DelayDistribution ipdvForward = new DelayDistribution();
    final DelayDistribution ipdvBack = new DelayDistribution();
    final DelayDistribution sendLateness = new DelayDistribution();

    long records;
    long lost;
    long received;
    long duplicates;
    long reordered;
    final long[] sendSources = new long[4];
    final long[] receiveSources = new long[4];
    final long[] forwardTtl = new long[256];
    final long[] backTtl = new long[256];
    final long[] replyDscp = new long[65];
    long localSynchronised;
    long localUnsynchronised;
    long remoteSynchronised;
    long remoteUnsynchronised;
    double maxSendErrorSeconds;
    double maxReflectorReceiveErrorSeconds;
    double maxReflectorSendErrorSeconds;
    double maxReceiveErrorSeconds;
    long firstSendNtp;
    long lastSendNtp;

    void reset() {
        for (DelayDistribution d : distributions()) {
            d.reset();
        }
        records = lost = received = duplicates = reordered = 0;
        Arrays.fill(sendSources, 0);
        Arrays.fill(receiveSources, 0);
        Arrays.fill(forwardTtl, 0);
        Arrays.fill(backTtl, 0);
        Arrays.fill(replyDscp, 0);
        localSynchronised = localUnsynchronised = remoteSynchronised = remoteUnsynchronised = 0;
        maxSendErrorSeconds = maxReflectorReceiveErrorSeconds = maxReflectorSendErrorSeconds = maxReceiveErrorSeconds = 0;
        firstSendNtp = lastSendNtp = 0;
    }

    private DelayDistribution[] distributions() {
        return new DelayDistribution[] {roundTrip, forward, back, processing, ipdvRoundTrip, ipdvForward, ipdvBack,
            sendLateness};
    }

    /** @return round-trip time excluding reflector processing, {@code (t4 - t1) - (t3 - t2)} */
    public DelayDistribution roundTrip() {
        return roundTrip;
    }

    /** @return forward ("send") delay {@code t2 - t1} */
    public DelayDistribution forward() {
        return forward;
    }

    /** @return back ("reflect") delay {@code t4 - t3} */
    public DelayDistribution back() {
        return back;
    }

    /** @return reflector processing time {@code t3 - t2} */
    public DelayDistribution processing() {
        return processing;
    }

    /** @return RFC 3393 IPDV of the round-trip time: {@code D(i+1) - D(i)} for consecutive received sequence numbers */
    public DelayDistribution ipdvRoundTrip() {
        return ipdvRoundTrip;
    }

    /** @return RFC 3393 IPDV of the forward delay */
    public DelayDistribution ipdvForward() {
        return ipdvForward;
    }

    /** @return RFC 3393 IPDV of the back delay */
    public DelayDistribution ipdvBack() {
        return ipdvBack;
    }

    /** @return how late each send was: t1 minus the scheduled send time */
    public DelayDistribution sendLateness() {
        return sendLateness;
    }

    /** @return records read (lost, received and duplicate) */
    public long records() {
        return records;
    }

    /** @return packets without a reply */
    public long lost() {
        return lost;
    }

    /** @return packets with at least one reply (first copies) */
    public long received() {
        return received;
    }

    /** @return sequence numbers resolved: {@code received + lost} */
    public long sent() {
        return received + lost;
    }

    /** @return further copies of an already answered sequence number */
    public long duplicates() {
        return duplicates;
    }

    /** @return replies that arrived after a reply of a higher sequence number (RFC 4737 reordered) */
    public long reordered() {
        return reordered;
    }

    /** @return loss in percent of {@link #sent()}, NaN when nothing was sent */
    public double lossPercent() {
        long sent = sent();
        return sent == 0 ? Double.NaN : 100.0 * lost / sent;
    }

    /** @return how many received packets had their t1 from each source ({@link RecordSources} codes) */
    public long sendSourceCount(int source) {
        return sendSources[source & 3];
    }

    /** @return how many received packets had their t4 from each source ({@link RecordSources} codes) */
    public long receiveSourceCount(int source) {
        return receiveSources[source & 3];
    }

    /** @return received packets whose sender packet arrived at the reflector with this TTL */
    public long forwardTtlCount(int ttl) {
        return forwardTtl[ttl & 0xFF];
    }

    /** @return received packets whose reply arrived with this TTL */
    public long backTtlCount(int ttl) {
        return backTtl[ttl & 0xFF];
    }

    /** @return replies that arrived with this DSCP (0..63), or {@link #DSCP_UNKNOWN} */
    public long replyDscpCount(int dscp) {
        return replyDscp[dscp];
    }

    /** @return timestamps of this host (t1, t4) flagged synchronised */
    public long localSynchronised() {
        return localSynchronised;
    }

    /** @return timestamps of this host (t1, t4) flagged unsynchronised */
    public long localUnsynchronised() {
        return localUnsynchronised;
    }

    /** @return timestamps of the reflector (t2, t3) flagged synchronised */
    public long remoteSynchronised() {
        return remoteSynchronised;
    }

    /** @return timestamps of the reflector (t2, t3) flagged unsynchronised */
    public long remoteUnsynchronised() {
        return remoteUnsynchronised;
    }

    /** @return the largest error estimate of t1 (seconds) */
    public double maxSendErrorSeconds() {
        return maxSendErrorSeconds;
    }

    /** @return the largest error estimate of t2 (seconds) */
    public double maxReflectorReceiveErrorSeconds() {
        return maxReflectorReceiveErrorSeconds;
    }

    /** @return the largest error estimate of t3 (seconds) */
    public double maxReflectorSendErrorSeconds() {
        return maxReflectorSendErrorSeconds;
    }

    /** @return the largest error estimate of t4 (seconds) */
    public double maxReceiveErrorSeconds() {
        return maxReceiveErrorSeconds;
    }

    /** @return the earliest t1 seen (Num64), 0 when none */
    public long firstSendNtp() {
        return firstSendNtp;
    }

    /** @return the latest t1 seen (Num64), 0 when none */
    public long lastSendNtp() {
        return lastSendNtp;
    }

    /** @return the smallest TTL seen in the direction (hops = 255 - TTL, as owamp counts them), or -1 */
    public int minTtl(boolean forwardDirection) {
        long[] t = forwardDirection ? forwardTtl : backTtl;
        for (int i = 0; i < 256; i++) {
            if (t[i] > 0) {
                return i;
            }
        }
        return -1;
    }

    /** @return the largest TTL seen in the direction, or -1 */
    public int maxTtl(boolean forwardDirection) {
        long[] t = forwardDirection ? forwardTtl : backTtl;
        for (int i = 255; i >= 0; i--) {
            if (t[i] > 0) {
                return i;
            }
        }
        return -1;
    }
}
