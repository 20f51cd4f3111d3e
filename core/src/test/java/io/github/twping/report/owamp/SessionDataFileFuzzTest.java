package io.github.twping.report.owamp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.twping.fuzz.FuzzSeeds;
import io.github.twping.datafile.InvalidDataFileException;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.TwoWayRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import java.nio.ByteBuffer;

/**
 * Fuzz (Jazzer, coverage-guided): the session data file reader and every report over it ({@code -F} files,
 * owstats' format), seeded with the recorded .owp files. The first input byte selects the report (human,
 * {@code -M}, {@code -R}, {@code -v -N}), the rest is the file. A file is either rejected with
 * {@link InvalidDataFileException} or read and reported; no other exception, no stack trace on stderr.
 */
@Tag("fuzz-datafile")
class SessionDataFileFuzzTest {
    private static final List<String> SEEDS = List.of("datafile-open.owp", "datafile-loss.owp",
            "datafile-fwdloss.owp", "datafile-exp.owp", "datafile-offset.owp", "fakerefl-badseq.owp",
            "fakerefl-dupbck.owp", "fakerefl-dupfwd.owp", "fakerefl-mult0.owp", "fakerefl-short.owp");
    private static final HostInfo HOSTS = new HostInfo("localhost", "9417", "127.0.0.1", "localhost", "18884",
            "127.0.0.1");
    private static final OutputOptions[] VARIANTS = {OutputOptions.defaults().withZone(ZoneOffset.UTC),
        OutputOptions.defaults().withZone(ZoneOffset.UTC).withMachine(true),
        OutputOptions.defaults().withZone(ZoneOffset.UTC).withRaw(true),
        OutputOptions.defaults().withZone(ZoneOffset.UTC).withVerbose(true, 0).withSubsession(7)};

    /** Offset of N (packets of the session, unsigned 32-bit) in the header (docs/STATISTICS.md). */
    private static final int PACKET_COUNT_OFFSET = 48;
    private static final long MAX_FUZZED_PACKETS = 2_000;

    static Stream<Arguments> recordedFiles() {
        return IntStream.range(0, SEEDS.size()).mapToObj(i -> FuzzSeeds.seed(SEEDS.get(i) + " " + i % VARIANTS.length,
                i % VARIANTS.length, FuzzSeeds.bytes(SEEDS.get(i))));
    }

    /**
     * The reports walk every scheduled packet (loss is per slot), so their time is linear in the header's N:
     * a mutated N of 10^8 takes seconds. N is kept below {@link #MAX_FUZZED_PACKETS} so that the fuzzer
     * explores parsing rather than that linear walk.
     */
    private static byte[] boundPacketCount(byte[] b) {
        if (b.length >= PACKET_COUNT_OFFSET + 4) {
            ByteBuffer bb = ByteBuffer.wrap(b);
            long n = Integer.toUnsignedLong(bb.getInt(PACKET_COUNT_OFFSET));
            if (n > MAX_FUZZED_PACKETS) {
                bb.putInt(PACKET_COUNT_OFFSET, (int) (n % MAX_FUZZED_PACKETS));
            }
        }
        return b;
    }

    @MethodSource("recordedFiles")
    @FuzzTest
    void rejectOrReport(byte[] input) {
        OutputOptions variant = VARIANTS[FuzzSeeds.selector(input, VARIANTS.length)];
        byte[] file = boundPacketCount(FuzzSeeds.payload(input));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(new ByteArrayOutputStream(), false, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, false, StandardCharsets.UTF_8)) {
            SessionDataReader reader = SessionDataReader.of(file);
            TwoWayRecord rec = new TwoWayRecord();
            for (long i = 0; i < reader.recordCount(); i++) {
                reader.read(i, rec);
            }
            Reports.write(variant, reader, HOSTS, o, e);
        } catch (InvalidDataFileException expected) {
            // rejected with the C diagnostics
        }
        String text = err.toString(StandardCharsets.UTF_8);
        if (text.contains("Exception") || text.contains("\tat ")) {
            throw new AssertionError("stack trace on stderr: " + text + "\n" + FuzzSeeds.show(input));
        }
    }
}
