package io.github.twping.stats.breakdown;

import java.util.Arrays;

import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.time.NtpTime;

/**
 * The delay breakdown of one data-file record (docs/STATISTICS.md, delay breakdown): each {@link Component} in
 * nanoseconds with the provenance of its two stamps, or the reason it is not known. A reusable flyweight:
 * {@link #compute} overwrites it and allocates nothing.
 *
 * <p>Every stamp is converted to epoch nanoseconds first ({@link NtpTime#toEpochNanos}) and the components are
 * differences of those, so that the known components on the path add up exactly to the span:
 * {@code sum of known path components == spanNs()}, where the span runs from the user-space send stamp (else t1)
 * to the moment the receiver thread saw the reply (else t4). A component that is not known contributes 0 and its
 * time is inside its neighbour ({@link Absence} says which). The round trip of the product ({@code rtt_ns},
 * {@code (t4 - t1) - (t3 - t2)} converted after the subtraction) equals {@code forward + reflector_stack + back}
 * within 3 ns (the rounding of four stamps to nanoseconds) when t1 is the forward component's start, which it is
 * unless the sender capped a send stamp at the loss-timeout bound (a stall longer than the loss timeout).
 */
public final class PacketBreakdown {
    private final long[] ns = new long[Component.COUNT];
    private final StampOrigin[] from = new StampOrigin[Component.COUNT];
    private final StampOrigin[] to = new StampOrigin[Component.COUNT];
    private final Absence[] absence = new Absence[Component.COUNT];
    private long recordIndex = -1;
    private long seq = -1;
    private boolean lost = true;
    private long startNs;
    private long endNs;
    private long rttNs;

    /** An empty breakdown (a lost packet of record -1) until {@link #compute} fills it. */
    public PacketBreakdown() {
        Arrays.fill(absence, Absence.LOST);
        Arrays.fill(from, StampOrigin.UNKNOWN);
        Arrays.fill(to, StampOrigin.UNKNOWN);
    }

    /**
     * Computes the breakdown of record {@code index}.
     *
     * @param index     the record's index in the data file
     * @param r         the record
     * @param sources   its {@link RecordSources} entry (0 when unknown)
     * @param stamps    the client's stamps of the session, or null (none kept)
     * @param reflector what the protocol said about the reflector's stamps ({@link ReflectorStamps#NONE} for TWAMP)
     * @return this
     */
    public PacketBreakdown compute(long index, TwoWayRecord r, short sources, RecordStamps stamps,
                                   ReflectorStamps reflector) {
        recordIndex = index;
        seq = r.sentSeq;
        lost = r.isLost();
        if (lost) {
            Arrays.fill(absence, Absence.LOST);
            Arrays.fill(from, StampOrigin.UNKNOWN);
            Arrays.fill(to, StampOrigin.UNKNOWN);
            Arrays.fill(ns, 0);
            startNs = 0;
            endNs = 0;
            rttNs = 0;
            return this;
        }
        long t2 = NtpTime.toEpochNanos(r.sentRecvNtp);
        long t3 = NtpTime.toEpochNanos(r.reflSendNtp);
        long t4 = NtpTime.toEpochNanos(r.reflRecvNtp);
        rttNs = NtpTime.signedDurationToNanos((r.reflRecvNtp - r.sentSendNtp) - (r.reflSendNtp - r.sentRecvNtp));
        int rxSource = RecordSources.receiveSource(sources);
        boolean kernelRx = rxSource == RecordSources.KERNEL_SOFTWARE || rxSource == RecordSources.KERNEL_HARDWARE;
        StampOrigin t4Origin = clientOrigin(rxSource);
        StampOrigin t2Origin = reflector.t2Origin(seq);
        StampOrigin t3Origin = reflector.t3Origin(seq);

        long forwardStart;
        StampOrigin forwardOrigin;
        if (stamps != null && stamps.recorded(index)) {
            long u1 = NtpTime.toEpochNanos(stamps.userSendNtp(index));
            set(Component.PACING_LATENESS, u1 - NtpTime.toEpochNanos(stamps.scheduledNtp(index)),
                    StampOrigin.SCHEDULE, StampOrigin.USER);
            long kernelTx = stamps.kernelTxNtp(index);
            if (kernelTx != 0) {
                long k1 = NtpTime.toEpochNanos(kernelTx);
                StampOrigin txOrigin = stamps.kernelTxHardware(index) ? StampOrigin.KERNEL_HARDWARE
                        : StampOrigin.KERNEL_SOFTWARE;
                set(Component.SENDER_STACK, k1 - u1, StampOrigin.USER, txOrigin);
                forwardStart = k1;
                forwardOrigin = txOrigin;
            } else {
                absent(Component.SENDER_STACK, Absence.NO_KERNEL_TX_STAMP);
                forwardStart = u1;
                forwardOrigin = StampOrigin.USER;
            }
            startNs = u1;
            if (kernelRx) {
                long u4 = NtpTime.toEpochNanos(stamps.receiptNtp(index));
                set(Component.RECEIVER_WAKEUP, u4 - t4, t4Origin, StampOrigin.USER);
                endNs = u4;
            } else {
                absent(Component.RECEIVER_WAKEUP, Absence.NO_KERNEL_RX_STAMP);
                endNs = t4;
            }
        } else {
            absent(Component.PACING_LATENESS, Absence.NOT_RECORDED);
            absent(Component.SENDER_STACK, Absence.NOT_RECORDED);
            absent(Component.RECEIVER_WAKEUP, rxSource == RecordSources.USER ? Absence.NO_KERNEL_RX_STAMP
                    : Absence.NOT_RECORDED);
            forwardStart = NtpTime.toEpochNanos(r.sentSendNtp);
            forwardOrigin = clientOrigin(RecordSources.sendSource(sources));
            startNs = forwardStart;
            endNs = t4;
        }
        set(Component.FORWARD, t2 - forwardStart, forwardOrigin, t2Origin);
        set(Component.REFLECTOR_RESIDENCE, t3 - t2, t2Origin, t3Origin);
        Absence followUp = reflector.followUpAbsence(seq);
        long backStart;
        StampOrigin backOrigin;
        if (followUp == null) {
            long f3 = NtpTime.toEpochNanos(reflector.followUpT3Ntp(seq));
            backOrigin = reflector.followUpOrigin(seq);
            set(Component.REFLECTOR_STACK, f3 - t3, t3Origin, backOrigin);
            backStart = f3;
        } else {
            absent(Component.REFLECTOR_STACK, followUp);
            backStart = t3;
            backOrigin = t3Origin;
        }
        set(Component.BACK, t4 - backStart, backOrigin, t4Origin);
        return this;
    }

    private static StampOrigin clientOrigin(int source) {
        return switch (source) {
            case RecordSources.USER -> StampOrigin.USER;
            case RecordSources.KERNEL_SOFTWARE -> StampOrigin.KERNEL_SOFTWARE;
            case RecordSources.KERNEL_HARDWARE -> StampOrigin.KERNEL_HARDWARE;
            default -> StampOrigin.UNKNOWN;
        };
    }

    private void set(Component c, long valueNs, StampOrigin first, StampOrigin second) {
        int i = c.ordinal();
        ns[i] = valueNs;
        from[i] = first;
        to[i] = second;
        absence[i] = null;
    }

    private void absent(Component c, Absence why) {
        int i = c.ordinal();
        ns[i] = 0;
        from[i] = StampOrigin.UNKNOWN;
        to[i] = StampOrigin.UNKNOWN;
        absence[i] = why;
    }

    /** Makes this a copy of {@code other}. */
    public PacketBreakdown copyFrom(PacketBreakdown other) {
        System.arraycopy(other.ns, 0, ns, 0, ns.length);
        System.arraycopy(other.from, 0, from, 0, from.length);
        System.arraycopy(other.to, 0, to, 0, to.length);
        System.arraycopy(other.absence, 0, absence, 0, absence.length);
        recordIndex = other.recordIndex;
        seq = other.seq;
        lost = other.lost;
        startNs = other.startNs;
        endNs = other.endNs;
        rttNs = other.rttNs;
        return this;
    }

    /** @return a new copy of this breakdown */
    public PacketBreakdown copy() {
        return new PacketBreakdown().copyFrom(this);
    }

    /** @return the record's index in the data file */
    public long recordIndex() {
        return recordIndex;
    }

    /** @return the sender sequence number */
    public long seq() {
        return seq;
    }

    /** @return true for a lost packet (every component absent) */
    public boolean lost() {
        return lost;
    }

    /** @return true when component {@code c} is known */
    public boolean known(Component c) {
        return absence[c.ordinal()] == null;
    }

    /** @return the value of {@code c} in ns (0 when not known: check {@link #known}) */
    public long ns(Component c) {
        return ns[c.ordinal()];
    }

    /** @return the provenance of the component's first (earlier) stamp; {@link StampOrigin#UNKNOWN} when absent */
    public StampOrigin from(Component c) {
        return from[c.ordinal()];
    }

    /** @return the provenance of the component's second (later) stamp; {@link StampOrigin#UNKNOWN} when absent */
    public StampOrigin to(Component c) {
        return to[c.ordinal()];
    }

    /** @return why {@code c} is not known, or null when it is */
    public Absence absence(Component c) {
        return absence[c.ordinal()];
    }

    /**
     * @return the span in ns: from the user-space send stamp (else t1) to the receiver thread's receipt of the reply
     * (else t4); 0 for a lost packet
     */
    public long spanNs() {
        return endNs - startNs;
    }

    /** @return the start of the span (epoch ns) */
    public long spanStartEpochNs() {
        return startNs;
    }

    /** @return the end of the span (epoch ns) */
    public long spanEndEpochNs() {
        return endNs;
    }

    /** @return the sum of the known components on the path (ns): equal to {@link #spanNs()} by construction */
    public long pathSumNs() {
        long sum = 0;
        for (Component c : Component.ALL) {
            if (c.onPath() && absence[c.ordinal()] == null) {
                sum += ns[c.ordinal()];
            }
        }
        return sum;
    }

    /** @return forward + reflector stack (when known) + back, in ns: the round trip the breakdown accounts for */
    public long roundTripNs() {
        long sum = ns[Component.FORWARD.ordinal()] + ns[Component.BACK.ordinal()];
        return known(Component.REFLECTOR_STACK) ? sum + ns[Component.REFLECTOR_STACK.ordinal()] : sum;
    }

    /** @return the record's round-trip time as the product reports it ({@code rtt_ns}); 0 for a lost packet */
    public long recordRttNs() {
        return rttNs;
    }
}
