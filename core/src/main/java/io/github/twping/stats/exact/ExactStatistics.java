package io.github.twping.stats.exact;

import java.util.BitSet;

import io.github.twping.datafile.DeltaSource;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;
import java.util.Arrays;

/**
 * The exact statistics engine (docs/STATISTICS.md, exact statistics): fed the same {@link TwoWayRecord}s
 * as the owamp-compatible engine, in data-file order, with each record's {@link RecordSources} entry. It
 * classifies each record once (lost, first reply, duplicate, reordered, IPDV pair, send lateness) and adds
 * it to the session's {@link #total()} and to the current {@link #interval()}.
 *
 * <p>Delays are exact nanosecond differences of the Num64 timestamps (no conversion to double before the
 * subtraction). Runs on a writer thread (or at the end), never on the session's sender or receiver.
 */
public final class ExactStatistics {
    private static final int IPDV_WINDOW = 1 << 16;

    private long packetCount;
    private final ScheduleCursor schedule;
    private final ExactSummary total = new ExactSummary();
    private final ExactSummary interval = new ExactSummary();
    private final BitSet answered = new BitSet();
    private final int ipdvMask;
    private final long[] ipdvSeq;
    private final long[] ipdvRtt;
    private final long[] ipdvFwd;
    private final long[] ipdvBck;
    private long highestReceivedSeq = -1;
    private long reflectorSeqLimit;      // highest reflector sequence number seen + 1
    private long replies;                // every reply record, duplicates included

    /** An engine for the session of {@code header}, with its send schedule. */
    public ExactStatistics(SessionHeader header) {
        this(header, ScheduleDeltas.of(header));
    }

    /** An engine with an explicit schedule (Δ_i source). */
    public ExactStatistics(SessionHeader header, DeltaSource deltas) {
        this(header, deltas, IPDV_WINDOW);
    }

    /**
     * An engine whose IPDV pairing window and scheduled-time ring are the smallest power of two holding the
     * session's sequence numbers, at most the default 2^16: the same results as
     * {@link #ExactStatistics(SessionHeader)} (no two sequence numbers of the session share a slot below the
     * default) in less memory, for engines that live as long as a session.
     */
    public static ExactStatistics sizedForSession(SessionHeader header) {
        return new ExactStatistics(header, ScheduleDeltas.of(header), sessionWindow(header));
    }

    /**
     * As {@link #sizedForSession(SessionHeader)}, in {@code reuse} when it has the same window: an engine of an earlier
     * session that nothing reads any more, started again from nothing (its summaries, pairing window and schedule;
     * the distributions keep their grown buffers), which gives the results a new engine gives. The agent keeps one
     * per target for its interval events: a new one per session outlived the young collections of its 10 s and was
     * promoted, about 37 KB of old-generation garbage per session.
     *
     * @param reuse an engine no longer read, or null
     */
    public static ExactStatistics sizedForSession(SessionHeader header, ExactStatistics reuse) {
        if (reuse == null || reuse.window() != sessionWindow(header)) {
            return sizedForSession(header);
        }
        reuse.restart(header, ScheduleDeltas.of(header));
        return reuse;
    }

    private static int sessionWindow(SessionHeader header) {
        long n = Math.max(2, Math.min(IPDV_WINDOW, header.packetCount()));
        return (int) Long.highestOneBit(n - 1) << 1;
    }

    private void restart(SessionHeader header, DeltaSource deltas) {
        packetCount = header.packetCount();
        schedule.restart(deltas, header.startTimeNtp());
        total.reset();
        interval.reset();
        answered.clear();
        Arrays.fill(ipdvSeq, -1);
        highestReceivedSeq = -1;
        reflectorSeqLimit = 0;
        replies = 0;
    }

    private ExactStatistics(SessionHeader header, DeltaSource deltas, int window) {
        this.packetCount = header.packetCount();
        this.schedule = new ScheduleCursor(deltas, header.startTimeNtp(), window);
        int ipdvWindow = window;
        this.ipdvMask = ipdvWindow - 1;
        this.ipdvSeq = new long[ipdvWindow];
        this.ipdvRtt = new long[ipdvWindow];
        this.ipdvFwd = new long[ipdvWindow];
        this.ipdvBck = new long[ipdvWindow];
        Arrays.fill(ipdvSeq, -1);
    }

    /**
     * @return the length of the IPDV pairing window and of the scheduled-time ring, in sequence numbers (a power
     *         of two): the engine holds five {@code long} arrays of this length
     */
    public int window() {
        return ipdvMask + 1;
    }

    /** @return everything accepted so far */
    public ExactSummary total() {
        return total;
    }

    /** @return what was accepted since the last {@link #resetInterval()} */
    public ExactSummary interval() {
        return interval;
    }

    /** Starts a new interval. */
    public void resetInterval() {
        interval.reset();
    }

    /**
     * Loss split into the forward and back direction where the reflector's sequence numbers allow it
     * (RFC 5357 §4.2.1: the reflector numbers its replies 0, 1, 2, ...): replies the reflector sent that
     * never arrived are back losses, the rest forward. Replies numbered after the last one received are
     * invisible, so the back count is a lower bound.
     *
     * @return the back-direction losses, or -1 when the reflector's numbering does not allow the split
     */
    public long backLost() {
        if (replies == 0) {
            return total.lost == 0 ? 0 : -1;
        }
        long back = reflectorSeqLimit - replies;
        return back < 0 || back > total.lost ? -1 : back;
    }

    /** @return forward-direction losses (lost minus {@link #backLost()}), or -1 when not known */
    public long forwardLost() {
        long back = backLost();
        return back < 0 ? -1 : total.lost - back;
    }

    /** Adds one record with its side-table entry (0 when unknown). */
    public void accept(TwoWayRecord r, short sources) {
        total.records++;
        interval.records++;
        long seq = r.sentSeq;
        if (r.isLost()) {
            total.lost++;
            interval.lost++;
            return;
        }
        replies++;
        reflectorSeqLimit = Math.max(reflectorSeqLimit, r.reflSeq + 1);
        boolean trackable = seq < Integer.MAX_VALUE;          // beyond 2^31 - 1 duplicates are not detected
        boolean duplicate = trackable && answered.get((int) seq);
        if (trackable) {
            answered.set((int) seq);
        }
        if (duplicate) {
            total.duplicates++;
            interval.duplicates++;
            return;
        }
        boolean reordered = highestReceivedSeq >= 0 && seq < highestReceivedSeq;
        highestReceivedSeq = Math.max(highestReceivedSeq, seq);

        long t1 = r.sentSendNtp;
        long t2 = r.sentRecvNtp;
        long t3 = r.reflSendNtp;
        long t4 = r.reflRecvNtp;
        long fwd = NtpTime.signedDurationToNanos(t2 - t1);
        long bck = NtpTime.signedDurationToNanos(t4 - t3);
        long proc = NtpTime.signedDurationToNanos(t3 - t2);
        long rtt = NtpTime.signedDurationToNanos((t4 - t1) - (t3 - t2));
        long scheduled = schedule.scheduledNtp(seq, packetCount);
        boolean hasLateness = scheduled != 0;
        long lateness = hasLateness ? NtpTime.signedDurationToNanos(t1 - scheduled) : 0;

        // IPDV (RFC 3393 §2.4, selection: consecutive sequence numbers, first copies): computed once, when the
        // second packet of a pair arrives.
        int slot = (int) seq & ipdvMask;
        ipdvSeq[slot] = seq;
        ipdvRtt[slot] = rtt;
        ipdvFwd[slot] = fwd;
        ipdvBck[slot] = bck;
        add(total, r, sources, rtt, fwd, bck, proc, hasLateness, lateness, reordered);
        add(interval, r, sources, rtt, fwd, bck, proc, hasLateness, lateness, reordered);
        int before = (int) (seq - 1) & ipdvMask;
        if (seq > 0 && ipdvSeq[before] == seq - 1) {
            ipdv(ipdvRtt[before], ipdvFwd[before], ipdvBck[before], rtt, fwd, bck);
        }
        int after = (int) (seq + 1) & ipdvMask;
        if (ipdvSeq[after] == seq + 1) {
            ipdv(rtt, fwd, bck, ipdvRtt[after], ipdvFwd[after], ipdvBck[after]);
        }
    }

    private void ipdv(long rtt0, long fwd0, long bck0, long rtt1, long fwd1, long bck1) {
        ipdv(total, rtt0, fwd0, bck0, rtt1, fwd1, bck1);
        ipdv(interval, rtt0, fwd0, bck0, rtt1, fwd1, bck1);
    }

    private static void ipdv(ExactSummary s, long rtt0, long fwd0, long bck0, long rtt1, long fwd1, long bck1) {
        s.ipdvRoundTrip.record(rtt1 - rtt0);
        s.ipdvForward.record(fwd1 - fwd0);
        s.ipdvBack.record(bck1 - bck0);
    }

    private static void add(ExactSummary s, TwoWayRecord r, short sources, long rtt, long fwd, long bck, long proc,
                            boolean hasLateness, long lateness, boolean reordered) {
        s.received++;
        if (reordered) {
            s.reordered++;
        }
        s.roundTrip.record(rtt);
        s.forward.record(fwd);
        s.back.record(bck);
        s.processing.record(proc);
        if (hasLateness) {
            s.sendLateness.record(lateness);
        }
        s.sendSources[RecordSources.sendSource(sources)]++;
        s.receiveSources[RecordSources.receiveSource(sources)]++;
        s.forwardTtl[r.sentTtl & 0xFF]++;
        s.backTtl[r.reflTtl & 0xFF]++;
        int dscp = RecordSources.replyDscp(sources);
        s.replyDscp[dscp < 0 ? ExactSummary.DSCP_UNKNOWN : dscp]++;
        countSync(s, r.sentSendErr, true);
        countSync(s, r.reflRecvErr, true);
        countSync(s, r.sentRecvErr, false);
        countSync(s, r.reflSendErr, false);
        s.maxSendErrorSeconds = Math.max(s.maxSendErrorSeconds, ErrorEstimate.seconds(r.sentSendErr));
        s.maxReflectorReceiveErrorSeconds = Math.max(s.maxReflectorReceiveErrorSeconds, ErrorEstimate.seconds(r.sentRecvErr));
        s.maxReflectorSendErrorSeconds = Math.max(s.maxReflectorSendErrorSeconds, ErrorEstimate.seconds(r.reflSendErr));
        s.maxReceiveErrorSeconds = Math.max(s.maxReceiveErrorSeconds, ErrorEstimate.seconds(r.reflRecvErr));
        if (s.firstSendNtp == 0 || Long.compareUnsigned(r.sentSendNtp, s.firstSendNtp) < 0) {
            s.firstSendNtp = r.sentSendNtp;
        }
        if (Long.compareUnsigned(r.sentSendNtp, s.lastSendNtp) > 0) {
            s.lastSendNtp = r.sentSendNtp;
        }
    }

    private static void countSync(ExactSummary s, int field, boolean local) {
        boolean sync = ErrorEstimate.isSynchronised(field);
        if (local) {
            if (sync) {
                s.localSynchronised++;
            } else {
                s.localUnsynchronised++;
            }
        } else if (sync) {
            s.remoteSynchronised++;
        } else {
            s.remoteUnsynchronised++;
        }
    }
}
