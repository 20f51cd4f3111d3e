package io.github.twping.report;

import io.github.twping.stats.DeltaSource;
import io.github.twping.stats.SessionHeader;

/** Test-only schedule for headers whose slots are all fixed: Δ_i = slot[i mod min(nslots, N)]. */
final class FixedDeltas implements DeltaSource {
    private final long[] values;
    private int index;

    FixedDeltas(SessionHeader header) {
        int n = (int) Math.min(header.slotCount(), Math.max(1, header.packetCount()));
        values = new long[n];
        for (int i = 0; i < n; i++) {
            if (!header.slotFixed(i)) {
                throw new AssertionError("exponential slot: needs the real SendSchedule");
            }
            values[i] = header.slotValueNtp(i);
        }
    }

    @Override
    public void reset() {
        index = 0;
    }

    @Override
    public long nextDeltaNtp() {
        long v = values[index];
        index = (index + 1) % values.length;
        return v;
    }
}
