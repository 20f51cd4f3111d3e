package io.github.twping.datafile;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;

/**
 * The sum of a session's whole send schedule, Σ Δ_i for i &lt; N (RFC 4656 §5), walked in steps that the caller
 * fits into its idle time. The statistics need it for the end time of a session stopped early (its last line,
 * schedtime(N−1), docs/STATISTICS.md): walked after a Ctrl-C, the 100,000 exponential deltas of
 * {@code -c 100000} (an AES block per four random words) took longer than the whole stop should (docs/CLI.md,
 * signals); walked during the wait for the start time, the stop only reads the sum
 * ({@link ScheduleDeltas#of(SessionHeader, ScheduleEnd)}). Not thread-safe.
 */
public final class ScheduleEnd {
    private final SendSchedule schedule;
    private final long packetCount;
    private long taken;
    private long sumNtp;

    private ScheduleEnd(SendSchedule schedule, long packetCount) {
        this.schedule = schedule;
        this.packetCount = packetCount;
    }

    /** The walk over the schedule of {@code header}, not begun; null when the header has no slots. */
    public static ScheduleEnd of(SessionHeader header) {
        ScheduleSlot[] slots = header.slots();
        if (slots.length == 0) {
            return null;
        }
        return new ScheduleEnd(new SendSchedule(header.sid(), slots, header.packetCount()), header.packetCount());
    }

    /**
     * Takes at most {@code maxDeltas} more deltas.
     *
     * @return true when the walk is finished
     */
    public boolean advance(long maxDeltas) {
        long stop = Math.min(packetCount, taken + Math.max(0, maxDeltas));
        long sum = sumNtp;
        for (long i = taken; i < stop; i++) {
            sum += schedule.nextDeltaNtp();
        }
        sumNtp = sum;
        taken = stop;
        return taken == packetCount;
    }

    /** Finishes the walk (the deltas not yet taken) and returns this. */
    public ScheduleEnd finish() {
        advance(packetCount - taken);
        return this;
    }

    /** @return true once all N deltas are summed */
    public boolean isDone() {
        return taken == packetCount;
    }

    /** @return N */
    public long packetCount() {
        return packetCount;
    }

    /** @return deltas summed so far */
    public long taken() {
        return taken;
    }

    /** @return Σ Δ_i over the deltas taken so far (all N once {@link #isDone}), Num64 modulo 2^64 */
    public long totalNtp() {
        return sumNtp;
    }
}
