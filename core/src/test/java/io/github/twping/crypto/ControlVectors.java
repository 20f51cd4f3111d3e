package io.github.twping.crypto;


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
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Loads the recorded owamp 5.2.3 control segments and crypto intermediates for tests. */
public final class ControlVectors {
    /** Pass-phrase of user alice in server-config/twamp-server.pfs. */
    public static final byte[] ALICE_PASSPHRASE = "s3cret-lab-key".getBytes(StandardCharsets.US_ASCII);

    /** One TCP segment: true when sent by the client. */
    public record Segment(boolean clientToServer, byte[] bytes) { }

    private ControlVectors() {
    }

    /** @return the vectors directory; fails the test with a clear message when it is missing. */
    public static Path dir() {
        return RecordedVectors.dir();
    }

    /** @return the segments of {@code <name>-control-segments.tsv} in order. */
    public static List<Segment> segments(String name) throws IOException {
        List<Segment> out = new ArrayList<>();
        for (String line : Files.readAllLines(dir().resolve(name + "-control-segments.tsv"))) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            out.add(new Segment(f[1].equals("C->S"), HexFormat.of().parseHex(f[3].trim())));
        }
        return out;
    }

    /** @return the concatenated bytes of one direction. */
    public static byte[] stream(List<Segment> segments, boolean clientToServer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Segment s : segments) {
            if (s.clientToServer() == clientToServer) {
                out.writeBytes(s.bytes());
            }
        }
        return out.toByteArray();
    }

    /** @return every {@code key=value} pair of {@code <mode>-crypto-verify.txt} (first occurrence wins), plus plain-lines as {@code plain.<cmd>}. */
    public static Map<String, String> verify(String mode) throws IOException {
        Map<String, String> map = new HashMap<>();
        Pattern kv = Pattern.compile("([A-Za-z0-9_]+)=('[^']*'|[0-9a-fx]+)");
        Pattern plain = Pattern.compile("C->S [A-Za-z-]+: cmd=(\\d) HMAC OK\\s+plain=([0-9a-f]+)");
        for (String line : Files.readAllLines(dir().resolve(mode + "-crypto-verify.txt"))) {
            Matcher p = plain.matcher(line);
            if (p.find()) {
                map.put("plain." + p.group(1), p.group(2));
                continue;
            }
            Matcher m = kv.matcher(line);
            while (m.find()) {
                map.putIfAbsent(m.group(1), m.group(2).replace("'", ""));
            }
        }
        return map;
    }

    public static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", "").replace("\n", ""));
    }

    public static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
