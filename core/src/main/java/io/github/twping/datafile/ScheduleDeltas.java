package io.github.twping.datafile;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;

/** {@link DeltaSource} over the bit-exact {@link SendSchedule} re-created from a data file header (docs/STATISTICS.md). */
public final class ScheduleDeltas implements DeltaSource {
    private final SendSchedule schedule;

    private ScheduleDeltas(SendSchedule schedule) {
        this.schedule = schedule;
    }

    /**
     * The schedule of the session described by {@code header} (SID, slots, N), or {@code null}
     * when the header has no slots.
     */
    public static ScheduleDeltas of(SessionHeader header) {
        ScheduleSlot[] slots = header.slots();
        if (slots.length == 0) {
            return null;
        }
        return new ScheduleDeltas(new SendSchedule(header.sid(), slots, header.packetCount()));
    }

    @Override
    public void reset() {
        schedule.reset();
    }

    @Override
    public long nextDeltaNtp() {
        return schedule.nextDeltaNtp();
    }
}
