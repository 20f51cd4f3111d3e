package io.github.twping.client;

import io.github.twping.schedule.SendSchedule;
import io.github.twping.stats.DeltaSource;

/** The send schedule as the statistics engine's source of offsets (spec 6.3). */
final class ScheduleDeltas implements DeltaSource {
    private final SendSchedule schedule;

    ScheduleDeltas(SendSchedule schedule) {
        this.schedule = schedule;
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
