package io.github.twping.stats.owamp;

import java.util.List;
import io.github.twping.datafile.DeltaSource;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;

/**
 * The owamp-compatible two-way statistics engine (docs/STATISTICS.md): loss and duplicate accounting
 * with the FWD/BCK node lists, delays with the C double quantisation, error sums, histogram,
 * TTL sets and the sync / clocks-offset flags.
 *
 * <p>One instance per session; {@link #summarize} may be called once per (sub-)range. Per
 * record it touches primitives only (no boxing, no allocation).
 */
public final class TwoWayStatistics {
    /** Type number of the FWD list in C messages. */
    static final int TYPE_FWD = 0;
    /** Type number of the BCK list in C messages. */
    static final int TYPE_BCK = 1;
    /** Sanity bound on nodes created by one request (protects against garbage reflect seqs). */
    static final long MAX_NODE_GAP = 1L << 24;

    static final String ITERATION_FAILED = "OWPStatsParse: iteration of twoway data records failed";
    static final String PARSE_FAILED = "OWPStatsParse: failed";
    static final String INVALID_RECORD = "OWPParseRecords: Invalid Data Record";
    static final String UNEXPECTED_LOST = "IterateSummarizeTWSession: Unexpected lost packet record";
    static final String UNEXPECTED_DUP = "IterateSummarizeTWSession: Unexpected duplicate packet record (for lost one)";
    static final String MULTIPLE_ASSOC =
        "IterateSummarizeTWSession: Reflect sequence number associated with multiple send sequence numbers";
    static final String FLUSH_SEND = "IterateTWSummarizeSession: Unable to flush send packets";
    static final String FLUSH_LOST_SEND = "IterateTWSummarizeSession: Unable to flush lost send packets";
    static final String FLUSH_REFLECT = "IterateTWSummarizeSession: Unable to flush reflect packets";
    static final String BUCKET_ALLOCATION =
        "BucketIncrementDelay: Allocating additional memory for OWPBucket buffer!";

    /** The most slots a pending-packet list starts with. */
    static final int INITIAL_LIST_SLOTS = 1024;

    private final SessionHeader header;
    private final DeltaSource schedule;
    /**
     * The pending packets of each direction: sized to the session (up to 1024 slots; they grow when more are
     * pending), so that a short session's summary does not allocate 43 KB of lists (the agent summarises 100-packet
     * sessions twice each, 100 targets at the end of every round).
     */
    private final PacketList fwd;
    private final PacketList bck;
    private final TwoWayRecord record = new TwoWayRecord();
    private final long timeoutNtp;
    private final double inf;

    private SummaryResult result;
    private long last;
    /** Reflect seqs from here on cannot be this session's (see {@link #fetch}). */
    private long bckLimit;
    /** schedtime of the highest FWD node created so far (the BCK cursor), = StartTime + Σ consumed Δ. */
    private long schedCursor;
    /** Number of Δ_i taken from the generator since its last reset; -1 before the first summary. */
    private long deltasConsumed = -1;
    private boolean fwdExhausted;
    private boolean bckExhausted;
    private List<String> diagnostics;

    /**
     * @param header   the data file header (L, N, start time)
     * @param schedule the session's send schedule (re-created from the header's SID and slots)
     */
    public TwoWayStatistics(SessionHeader header, DeltaSource schedule) {
        this.header = header;
        this.schedule = schedule;
        int lists = (int) Math.min(INITIAL_LIST_SLOTS, Math.max(16, header.packetCount() + 1));
        this.fwd = new PacketList(lists);
        this.bck = new PacketList(lists);
        this.timeoutNtp = header.timeoutNtp();
        this.inf = Num64.toDouble(timeoutNtp + 1);
    }

    /**
     * Summarises sent sequence numbers {@code [first, last)}.
     *
     * @param reader       the data file
     * @param first        first sent seq of the range
     * @param last         one past the last sent seq
     * @param beginRecord  record index where parsing starts ({@code -N} resume rule, docs/STATISTICS.md)
     * @param recordLimit  the {@code -v} limit (0 = all records)
     * @param listener     per-record callback for {@code -v} lines, or {@code null}
     * @param out          receives the result (reset first)
     * @param diagnostics  receives the C error lines on failure (and warnings)
     * @return true on success; false if the C statistics would fail (lines in {@code diagnostics})
     */
    public boolean summarize(SessionDataReader reader, long first, long last, long beginRecord, long recordLimit,
                             RecordListener listener, SummaryResult out, List<String> diagnostics) {
        this.result = out;
        this.last = last;
        this.diagnostics = diagnostics;
        out.reset(first, last, inf);

        // schedtime(first): continue the generator when the ranges ascend (-N), else replay from Δ_0
        if (deltasConsumed < 0 || deltasConsumed > first + 1) {
            schedule.reset();
            deltasConsumed = 0;
            schedCursor = header.startTimeNtp();
        }
        while (deltasConsumed <= first) {
            nextFwdSchedtime();
        }
        long sched = schedCursor;
        out.startTimeNtp = sched;
        out.endTimeNtp = sched;
        fwd.reset(first, sched);
        bck.reset(first, sched);
        fwdExhausted = false;
        bckExhausted = false;

        // a reflector numbers the packets it received: at most the N scheduled plus the duplicates the network made,
        // and each of those that reached us is a record; a larger reflect seq is garbage, whose nodes (every seq
        // up to it) would cost memory and time linear in its value
        bckLimit = header.packetCount() + reader.recordCount();
        long available = Math.max(0, reader.recordCount() - beginRecord);
        long count = recordLimit > 0 ? Math.min(available, recordLimit) : available;
        boolean nextSeen = false;
        out.nextBeginRecord = 0;
        int warningsBefore = 0;
        for (long k = 0; k < count; k++) {
            long index = beginRecord + k;
            TwoWayRecord r = reader.read(index, record);
            out.recordsExamined++;
            if (r.hasInvalidErrorEstimate()) {
                return fail(INVALID_RECORD);
            }
            long seq = r.sentSeq;
            if (!nextSeen && seq >= last) {
                nextSeen = true;
                out.nextBeginRecord = index;
            }
            if (seq < first || seq >= last) {
                continue;
            }
            if (!processRecord(r, listener)) {
                return false;
            }
            int warnings = out.histogram.allocationWarnings();
            for (; warningsBefore < warnings; warningsBefore++) {
                diagnostics.add(BUCKET_ALLOCATION);
            }
        }
        drainFwd();
        drainBck();
        return true;
    }

    /**
     * The final flush of the FWD list (docs/STATISTICS.md): its nodes, then, as C does, a node per scheduled packet
     * up to {@code last - 1} that no record named. Such a node counts nothing, it only moves the end time to its
     * schedtime, so once the records' nodes are flushed the rest is one jump: the end time becomes
     * schedtime({@code last - 1}), with the deltas summed by {@link DeltaSource#skipDeltasNtp} (O(1) when the
     * schedule's total is known, as after a Ctrl-C in a long session: docs/CLI.md, signals).
     */
    private void drainFwd() {
        while (!fwdExhausted) {
            long end = fwd.endSeq();
            flushFirst(fwd, true);
            if (!fwdExhausted && fwd.firstSeq() == end) {
                // the list emptied and flushFirst appended node `end`, which no record named: jump to last - 1
                long remaining = last - 1 - end;
                schedCursor += schedule.skipDeltasNtp(remaining);
                deltasConsumed += remaining;
                result.endTimeNtp = schedCursor;
                fwd.removeFirst();
                fwdExhausted = true;
            }
        }
    }

    /** The final flush of the BCK list: as {@link #drainFwd}, its appended nodes all carry the cursor's schedtime. */
    private void drainBck() {
        while (!bckExhausted) {
            long end = bck.endSeq();
            flushFirst(bck, false);
            if (!bckExhausted && bck.firstSeq() == end) {
                result.endTimeNtp = schedCursor;
                bck.removeFirst();
                bckExhausted = true;
            }
        }
    }

    private boolean fail(String message) {
        if (message != null) {
            diagnostics.add(message);
        }
        diagnostics.add(ITERATION_FAILED);
        diagnostics.add(PARSE_FAILED);
        return false;
    }

    private boolean processRecord(TwoWayRecord r, RecordListener listener) {
        SummaryResult out = result;
        boolean lostRecord = r.sentRecvNtp == 0;
        // step 1
        if (lostRecord) {
            while (!fwdExhausted && fwd.firstSeq() < r.sentSeq) {
                flushFirst(fwd, true);
            }
        } else {
            long limit = r.sentSendNtp - timeoutNtp;
            while (!fwdExhausted && Long.compareUnsigned(fwd.schedtime(fwd.headIndex()), limit) < 0) {
                flushFirst(fwd, true);
            }
        }
        // step 2
        if (!fwdExhausted) {
            long assoc = fwd.assoc(fwd.headIndex());
            while (!bckExhausted && assoc > bck.firstSeq()) {
                flushFirst(bck, false);
            }
        }
        // step 3
        int f = fetch(fwd, TYPE_FWD, r.sentSeq);
        if (f < 0) {
            diagnostics.add("IterateSummarizeTWSession: Unable to fetch send packet #" + r.sentSeq);
            return fail(null);
        }
        if (lostRecord) {
            if (fwd.seen(f) > 0) {
                return fail(UNEXPECTED_LOST);
            }
            fwd.lost(f, true);
            out.sent++;
            if (Num64.syncBit(r.sentRecvErr) == 0) {
                out.sync = false;
            }
            double e = Num64.errorSeconds(r.sentRecvErr);
            double[] me = out.maxErr;
            me[SummaryResult.RT] = Math.max(me[SummaryResult.RT], e);
            me[SummaryResult.FWD] = Math.max(me[SummaryResult.FWD], e);
            me[SummaryResult.BCK] = Math.max(me[SummaryResult.BCK], e);
            if (listener != null) {
                listener.onLost(r);
            }
            return true;
        }
        if (fwd.lost(f)) {
            return fail(UNEXPECTED_DUP);
        }
        int b = fetch(bck, TYPE_BCK, r.reflSeq);
        if (b < 0) {
            diagnostics.add("IterateSummarizeTWSession: Unable to fetch reflect packet #" + r.reflSeq);
            return fail(null);
        }
        if (bck.seen(b) == 0) {
            bck.assoc(b, r.sentSeq);
        } else if (bck.assoc(b) != r.sentSeq) {
            return fail(MULTIPLE_ASSOC);
        }
        bck.seen(b, bck.seen(b) + 1);
        if (fwd.seen(f) == 0) {
            out.sent++;
            fwd.seen(f, 1);
            fwd.assoc(f, r.reflSeq);
        } else if (fwd.assoc(f) != r.reflSeq && bck.seen(b) == 1) {
            fwd.seen(f, fwd.seen(f) + 1);
        }

        double sentSend = Num64.toDouble(r.sentSendNtp);
        double sentRecv = Num64.toDouble(r.sentRecvNtp);
        double reflSend = Num64.toDouble(r.reflSendNtp);
        double reflRecv = Num64.toDouble(r.reflRecvNtp);
        double proc = reflSend - sentRecv;
        double rt = (reflRecv - sentSend) - proc;
        double fwdDelay = sentRecv - sentSend;
        double bckDelay = reflRecv - reflSend;
        double eSentSend = Num64.errorSeconds(r.sentSendErr);
        double eSentRecv = Num64.errorSeconds(r.sentRecvErr);
        double eReflSend = Num64.errorSeconds(r.reflSendErr);
        double eReflRecv = Num64.errorSeconds(r.reflRecvErr);
        double errRt = eSentSend + eReflRecv + eReflSend + eSentRecv;
        double errFwd = eSentSend + eSentRecv;
        double errBck = eReflSend + eReflRecv;
        if (fwdDelay < 0 || bckDelay < 0) {
            out.clocksOffset = true;
        }
        if (listener != null) {
            listener.onReceived(r, fwdDelay, bckDelay, rt, proc, errRt);
        }
        double[] mn = out.min;
        double[] mx = out.max;
        updateMinMax(mn, mx, SummaryResult.RT, rt);
        updateMinMax(mn, mx, SummaryResult.FWD, fwdDelay);
        updateMinMax(mn, mx, SummaryResult.BCK, bckDelay);
        updateMinMax(mn, mx, SummaryResult.PROC, proc);
        double[] me = out.maxErr;
        me[SummaryResult.RT] = Math.max(me[SummaryResult.RT], errRt);
        me[SummaryResult.FWD] = Math.max(me[SummaryResult.FWD], errFwd);
        me[SummaryResult.BCK] = Math.max(me[SummaryResult.BCK], errBck);
        if (fwd.seen(f) > 1 || bck.seen(b) > 1) {
            return true;
        }
        DelayHistogram h = out.histogram;
        h.add(DelayHistogram.RT, rt);
        h.add(DelayHistogram.FWD, fwdDelay);
        h.add(DelayHistogram.BCK, bckDelay);
        out.ttlFwd[r.sentTtl & 0xFF]++;
        out.ttlBck[r.reflTtl & 0xFF]++;
        return true;
    }

    private static void updateMinMax(double[] mn, double[] mx, int type, double v) {
        if (v < mn[type]) {
            mn[type] = v;
        }
        if (v > mx[type]) {
            mx[type] = v;
        }
    }

    /** Returns the ring index of the node for {@code seq}, creating nodes up to it; -1 if out of range. */
    private int fetch(PacketList list, int type, long seq) {
        boolean exhausted = list == fwd ? fwdExhausted : bckExhausted;
        if (exhausted || seq < list.firstSeq() || (type == TYPE_FWD && seq > last) || (type == TYPE_BCK && seq >= bckLimit)
            || seq - list.endSeq() > MAX_NODE_GAP) {
            diagnostics.add("Invalid type " + type + " seq number request (out of range)");
            return -1;
        }
        while (list.endSeq() <= seq) {
            list.append(type == TYPE_FWD ? nextFwdSchedtime() : schedCursor);
        }
        return list.index(seq);
    }

    private long nextFwdSchedtime() {
        schedCursor += schedule.nextDeltaNtp();
        deltasConsumed++;
        return schedCursor;
    }

    /** Flushes the first node of {@code list} (docs/STATISTICS.md). */
    private void flushFirst(PacketList list, boolean isFwd) {
        int i = list.headIndex();
        if (list.lost(i)) {
            result.lost++;
        } else if (list.seen(i) > 0) {
            if (isFwd) {
                result.dupsFwd += list.seen(i) - 1;
            } else {
                result.dupsBck += list.seen(i) - 1;
            }
        }
        result.endTimeNtp = list.schedtime(i);
        long seq = list.firstSeq();
        list.removeFirst();
        if (list.isEmpty()) {
            if (seq + 1 < last) {
                list.append(isFwd ? nextFwdSchedtime() : schedCursor);
            } else if (isFwd) {
                fwdExhausted = true;
            } else {
                bckExhausted = true;
            }
        }
    }
}
