package io.github.twping.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.twping.fuzz.Fuzz;
import io.github.twping.stats.InvalidDataFileException;
import io.github.twping.stats.SessionDataReader;
import io.github.twping.stats.TwoWayRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz: the session data file reader and every report over it ({@code -F} files, owstats' format), seeded
 * with the recorded .owp files. A mutated file is either rejected with {@link InvalidDataFileException} or
 * read and reported; no other exception, no stack trace on stderr.
 */
class SessionDataFileFuzzTest {
    private static final List<String> SEEDS = List.of("datafile-open.owp", "datafile-loss.owp",
            "datafile-fwdloss.owp", "datafile-exp.owp", "datafile-offset.owp", "fakerefl-badseq.owp",
            "fakerefl-dupbck.owp", "fakerefl-dupfwd.owp", "fakerefl-mult0.owp", "fakerefl-short.owp");
    private static final HostInfo HOSTS = new HostInfo("localhost", "9417", "127.0.0.1", "localhost", "18884",
            "127.0.0.1");

    /** Offset of N (packets of the session, unsigned 32-bit) in the header (docs/STATISTICS.md). */
    private static final int PACKET_COUNT_OFFSET = 48;
    private static final long MAX_FUZZED_PACKETS = 20_000;

    /**
     * The reports walk every scheduled packet (loss is per slot), so their time is linear in the header's N:
     * a mutated N of 10^8 takes seconds. N is kept below {@link #MAX_FUZZED_PACKETS} so that the bounded
     * pass tests parsing rather than that linear walk.
     */
    private static byte[] boundPacketCount(byte[] b) {
        if (b.length >= PACKET_COUNT_OFFSET + 4) {
            java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b);
            long n = Integer.toUnsignedLong(bb.getInt(PACKET_COUNT_OFFSET));
            if (n > MAX_FUZZED_PACKETS) {
                bb.putInt(PACKET_COUNT_OFFSET, (int) (n % MAX_FUZZED_PACKETS));
            }
        }
        return b;
    }

    @Test
    @Timeout(300)
    void shouldRejectOrReportEveryMutatedDataFile() {
        List<byte[]> seeds = SEEDS.stream().map(Fuzz::bytes).toList();
        OutputOptions[] variants = {OutputOptions.defaults().withZone(ZoneOffset.UTC),
            OutputOptions.defaults().withZone(ZoneOffset.UTC).withMachine(true),
            OutputOptions.defaults().withZone(ZoneOffset.UTC).withRaw(true),
            OutputOptions.defaults().withZone(ZoneOffset.UTC).withVerbose(true, 0).withSubsession(7)};
        SplittableRandom r = Fuzz.random("datafile");
        int inputs = Fuzz.inputs(1000);
        long start = System.nanoTime();
        long deadline = Fuzz.deadlineNs();
        int done = 0;
        int failures = 0;
        for (; done < inputs && System.nanoTime() < deadline; done++) {
            byte[] input = boundPacketCount(Fuzz.mutate(Fuzz.pick(seeds, r), Fuzz.pick(seeds, r), r));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try (PrintStream o = new PrintStream(new ByteArrayOutputStream(), false, StandardCharsets.UTF_8);
                 PrintStream e = new PrintStream(err, false, StandardCharsets.UTF_8)) {
                SessionDataReader reader = SessionDataReader.of(input);
                TwoWayRecord rec = new TwoWayRecord();
                for (long i = 0; i < reader.recordCount(); i++) {
                    reader.read(i, rec);
                }
                Reports.write(variants[done % variants.length], reader, HOSTS, o, e);
            } catch (InvalidDataFileException expected) {
                // rejected with the C diagnostics
            } catch (RuntimeException | Error e) {
                failures++;
                fail("input " + done + " (seed " + Fuzz.seed() + "): " + e + "\n" + Fuzz.show(input), e);
            }
            String text = err.toString(StandardCharsets.UTF_8);
            if (text.contains("Exception") || text.contains("\tat ")) {
                failures++;
                fail("stack trace on stderr for input " + done + ": " + text + "\n" + Fuzz.show(input));
            }
        }
        Fuzz.report("datafile", done, failures, start);
        assertEquals(0, failures);
    }
}
