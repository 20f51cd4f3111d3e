package io.github.twping.crypto;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.github.twping.testdata.RecordedVectors;

/** Loads the owamp 5.2.3 recordings of one mode: UDP test packets, -R records, crypto intermediates. */
final class TestVectors {
    static final HexFormat HEX = HexFormat.of();

    /** One captured datagram. */
    record Datagram(int sourcePort, int destinationPort, int ipTtl, byte[] bytes) {
    }

    /** One {@code -R} line (docs/STATISTICS.md). */
    record RawRecord(long sentSeq, long sentSendNtp, long sentRecvNtp, int sentTtl, long reflSeq, long reflSendNtp,
        long reflRecvNtp, int reflTtl) {
    }

    static Path directory() {
        return RecordedVectors.dir();
    }

    static List<Datagram> datagrams(String mode) throws IOException {
        List<Datagram> result = new ArrayList<>();
        for (String line : Files.readAllLines(directory().resolve(mode + "-test-udp.tsv"))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            byte[] bytes = HEX.parseHex(f[5].strip());
            if (bytes.length != Integer.parseInt(f[4])) {
                fail("length column disagrees with hex in " + mode + ": " + line);
            }
            result.add(new Datagram(Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]), bytes));
        }
        return result;
    }

    static Map<Long, RawRecord> rawRecordsBySentSeq(String mode) throws IOException {
        Map<Long, RawRecord> result = new HashMap<>();
        for (String line : Files.readAllLines(directory().resolve(mode + "-R.txt"))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            RawRecord r = new RawRecord(Long.parseLong(f[0]), Long.parseUnsignedLong(f[1]), Long.parseUnsignedLong(f[4]),
                Integer.parseInt(f[7]), Long.parseLong(f[8]), Long.parseUnsignedLong(f[9]), Long.parseUnsignedLong(f[12]),
                Integer.parseInt(f[15]));
            result.put(r.sentSeq(), r);
        }
        return result;
    }

    /** Returns a {@code name=hex} value from {@code <mode>-crypto-verify.txt}. */
    static byte[] cryptoValue(String mode, String regex) throws IOException {
        String text = Files.readString(directory().resolve(mode + "-crypto-verify.txt"));
        Matcher m = Pattern.compile(regex + "([0-9a-f]+)").matcher(text);
        if (!m.find()) {
            fail("no " + regex + " in " + mode + "-crypto-verify.txt");
        }
        return HEX.parseHex(m.group(1));
    }

    private TestVectors() {
    }
}
