package io.github.twping.report.extended;

import java.util.ArrayList;
import java.util.List;

import io.github.twping.report.owamp.HostInfo;
import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.owamp.TwoWayStatistics;

/**
 * Everything the result writers need about one finished session: its header and hosts, the exact
 * statistics over every record of the data file, and the owamp-compatible summary of the same records.
 *
 * @param header     the data file header
 * @param hosts      the names printed in the headers
 * @param exact      the exact engine after a pass over every record
 * @param owamp      the owamp-compatible summary, or null when that pass failed (an invalid record)
 * @param origin     where it came from: {@code measurement} or {@code file}
 * @param dataFile   the {@code -F} / {@code --report} file, or null
 * @param tool       the program name
 * @param version    the program version
 * @param bucketWidthSeconds the {@code -b} bucket width of the owamp values
 */
public record SessionResults(SessionHeader header, HostInfo hosts, ExactStatistics exact, SummaryResult owamp,
                             String origin, String dataFile, String tool, String version, float bucketWidthSeconds) {
    /** Origin of a measured session. */
    public static final String MEASUREMENT = "measurement";
    /** Origin of a re-reported file. */
    public static final String FILE = "file";

    /**
     * Runs both engines over every record of {@code reader}.
     *
     * @param sources the side table of the measurement, or null (re-reported file: sources unknown)
     */
    public static SessionResults compute(SessionDataReader reader, RecordSources sources, HostInfo hosts, String origin,
                                         String dataFile, String tool, String version, float bucketWidthSeconds) {
        SessionHeader header = reader.header();
        ExactStatistics exact = ExactStatistics.sizedForSession(header);
        TwoWayRecord r = new TwoWayRecord();
        long count = reader.recordCount();
        for (long i = 0; i < count; i++) {
            reader.read(i, r);
            exact.accept(r, sources == null ? 0 : sources.get(i));
        }
        SummaryResult owamp = new SummaryResult(bucketWidthSeconds);
        List<String> diagnostics = new ArrayList<>();
        boolean ok = new TwoWayStatistics(header, ScheduleDeltas.of(header))
                .summarize(reader, 0, header.packetCount(), 0, 0, null, owamp, diagnostics);
        return new SessionResults(header, hosts != null ? hosts : HostInfo.numericFrom(header), exact,
                ok ? owamp : null, origin, dataFile, tool, version, bucketWidthSeconds);
    }

    /** @return the per-record source entry of record {@code index} (0 when unknown) */
    static short source(RecordSources sources, long index) {
        return sources == null ? 0 : sources.get(index);
    }
}
