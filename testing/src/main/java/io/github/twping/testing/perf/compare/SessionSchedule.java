package io.github.twping.testing.perf.compare;

import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The scheduled send time of every packet of a session, re-created bit-exactly from the header of its data
 * file ({@code -F}): start time plus the owamp schedule of the session's SID and slots (docs/STATISTICS.md).
 * Both clients write the same file format, so lateness is measured the same way for both.
 */
public final class SessionSchedule {
    private SessionSchedule() {
    }

    /** @return scheduled NTP send times indexed by sequence number, or null when the header has no slots. */
    public static long[] read(Path dataFile) throws IOException {
        try (SessionDataReader reader = SessionDataReader.open(dataFile)) {
            return of(reader.header());
        }
    }

    /** As {@link #read}, from a decoded header. */
    public static long[] of(SessionHeader header) {
        ScheduleDeltas deltas = ScheduleDeltas.of(header);
        if (deltas == null) {
            return null;
        }
        long[] out = new long[Math.toIntExact(header.packetCount())];
        deltas.reset();
        long t = header.startTimeNtp();
        for (int i = 0; i < out.length; i++) {
            t += deltas.nextDeltaNtp();
            out[i] = t;
        }
        return out;
    }
}
