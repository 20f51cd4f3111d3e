package io.github.twping.datafile;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;

/**
 * {@link DeltaSource} over the bit-exact {@link SendSchedule} re-created from a data file header (docs/STATISTICS.md).
 * Made with a finished {@link ScheduleEnd} ({@link #of(SessionHeader, ScheduleEnd)}), it answers a skip to the end
 * of the schedule (the final flush of the statistics, {@link DeltaSource#skipDeltasNtp}) without walking it.
 */
public final class ScheduleDeltas implements DeltaSource {
    private final SendSchedule schedule;
    private final long packetCount;
    /** Σ Δ_i over the whole schedule (i &lt; N), valid when {@link #totalKnown}. */
    private final long totalNtp;
    private final boolean totalKnown;
    /** Deltas taken since the last reset, and their sum. */
    private long taken;
    private long sumNtp;
    /** Deltas taken one by one ({@link #nextDeltaNtp}) since this source was made, resets included. */
    private long walked;

    private ScheduleDeltas(SendSchedule schedule, long packetCount, long totalNtp, boolean totalKnown) {
        this.schedule = schedule;
        this.packetCount = packetCount;
        this.totalNtp = totalNtp;
        this.totalKnown = totalKnown;
    }

    /**
     * The schedule of the session described by {@code header} (SID, slots, N), or {@code null}
     * when the header has no slots.
     */
    public static ScheduleDeltas of(SessionHeader header) {
        return of(header, null);
    }

    /**
     * As {@link #of(SessionHeader)}, with the schedule's total from {@code end} when that walk is finished
     * ({@link ScheduleEnd#finish}); an unfinished or null {@code end} is ignored.
     */
    public static ScheduleDeltas of(SessionHeader header, ScheduleEnd end) {
        ScheduleSlot[] slots = header.slots();
        if (slots.length == 0) {
            return null;
        }
        boolean known = end != null && end.isDone() && end.packetCount() == header.packetCount();
        return new ScheduleDeltas(new SendSchedule(header.sid(), slots, header.packetCount()), header.packetCount(),
                known ? end.totalNtp() : 0, known);
    }

    @Override
    public void reset() {
        schedule.reset();
        taken = 0;
        sumNtp = 0;
    }

    @Override
    public long nextDeltaNtp() {
        long d = schedule.nextDeltaNtp();
        taken++;
        walked++;
        sumNtp += d;
        return d;
    }

    /** Answered from the known total when the skip reaches exactly the end of the schedule (N deltas taken). */
    @Override
    public long skipDeltasNtp(long count) {
        if (totalKnown && count >= 0 && taken + count == packetCount) {
            long rest = totalNtp - sumNtp;
            taken = packetCount;
            sumNtp = totalNtp;
            // the generator is not moved: nothing may be taken after the end without a reset
            return rest;
        }
        return DeltaSource.super.skipDeltasNtp(count);
    }

    /** @return the deltas taken one by one ({@link #nextDeltaNtp}) since this source was made (a skip's not counted) */
    public long walked() {
        return walked;
    }
}
