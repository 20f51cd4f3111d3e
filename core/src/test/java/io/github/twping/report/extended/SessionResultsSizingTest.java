package io.github.twping.report.extended;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.twping.stats.exact.ExactStatistics;
import io.github.twping.stats.exact.ExactSummary;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.testdata.RecordedVectors;
import io.github.twping.time.NtpTime;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;

/**
 * The exact engines built once per session ({@link SessionResults#compute}: the end-of-session outputs and the
 * agent's {@code end} line; {@link StreamState}: twping's {@code --json-stream}) are sized for the session's
 * packet count, not the default 2^16 window (five {@code long} arrays, 2.5 MiB), with the default engine's results.
 */
class SessionResultsSizingTest {
    private static final List<String> RECORDED = List.of("datafile-open.owp", "datafile-loss.owp",
            "datafile-fwdloss.owp", "datafile-exp.owp", "datafile-offset.owp");

    private static SessionHeader header(long packets) {
        return new SessionHeader(new byte[16], 4, new byte[] {127, 0, 0, 1}, 9000, new byte[] {127, 0, 0, 1}, 862,
                packets, 0, 3_973_000_000L << 32, NtpTime.ONE_SECOND, 0, new boolean[] {true},
                new long[] {NtpTime.fromSeconds(0.01)}, SessionHeader.FINISHED_NORMAL);
    }

    private static int roundedUp(long packets) {
        int w = 2;
        while (w < packets && w < (1 << 16)) {
            w <<= 1;
        }
        return w;
    }

    @Test
    void shouldSizeTheEndOfSessionEngineForTheRecordedSessions() throws IOException {
        for (String name : RECORDED) {
            try (SessionDataReader reader = SessionDataReader.open(RecordedVectors.file(name))) {
                long packets = reader.header().packetCount();
                SessionResults results = SessionResults.compute(reader, null, null, SessionResults.FILE, name,
                        "twping", "test", 0.0001f);
                assertEquals(roundedUp(packets), results.exact().window(), name + ": " + packets + " packets");
                assertTrue(results.exact().window() < (1 << 16), name);

                ExactStatistics full = new ExactStatistics(reader.header());
                TwoWayRecord r = new TwoWayRecord();
                for (long i = 0; i < reader.recordCount(); i++) {
                    reader.read(i, r);
                    full.accept(r, (short) 0);
                }
                ExactSummary a = results.exact().total();
                ExactSummary b = full.total();
                assertTrue(b.received() > 0, name);
                assertEquals(List.of(b.sent(), b.received(), b.lost(), b.duplicates(), b.reordered(),
                                b.roundTrip().count(), b.ipdvRoundTrip().count(), b.sendLateness().count()),
                        List.of(a.sent(), a.received(), a.lost(), a.duplicates(), a.reordered(),
                                a.roundTrip().count(), a.ipdvRoundTrip().count(), a.sendLateness().count()), name);
            }
        }
    }

    @Test
    void shouldAllocateAFractionOfTheDefaultEngineForASmallSession() throws IOException {
        try (SessionDataReader reader = SessionDataReader.open(RecordedVectors.file("datafile-open.owp"))) {
            ThreadMXBean threads =
                    (ThreadMXBean) ManagementFactory.getThreadMXBean();
            long thread = Thread.currentThread().threadId();
            SessionResults.compute(reader, null, null, SessionResults.FILE, null, "twping", "test", 0.0001f);  // warm
            long before = threads.getThreadAllocatedBytes(thread);
            SessionResults.compute(reader, null, null, SessionResults.FILE, null, "twping", "test", 0.0001f);
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            // the default engine's arrays alone are 5 x 2^16 longs (2.5 MiB)
            assertTrue(allocated < 5L * 8 * (1 << 16) / 4, "allocated " + allocated + " bytes");
        }
    }

    @Test
    void shouldSizeTheJsonStreamEngineForTheSession() {
        assertEquals(1024, new StreamState(header(600), null, false, 0).engine().window());
        assertEquals(2, new StreamState(header(1), null, false, 0).engine().window());
        assertEquals(1 << 16, new StreamState(header(10_000_000), null, false, 0).engine().window());
    }
}
