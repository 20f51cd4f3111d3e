package io.github.twping.fuzz;

import io.github.twping.testdata.RecordedVectors;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Seeds and input framing for the Jazzer fuzz tests (docs/TESTING.md, fuzzing). The engine (mutation,
 * coverage feedback, corpus, findings) is Jazzer's; this class only turns the recorded C 5.2.3 vectors
 * ({@code testing/vectors/owamp-5.2.3}) into seed inputs and splits an input into the target's parts.
 *
 * <p>Several fuzz tests drive more than one parser (the four modes, the report variants, the three
 * configuration files): the first byte of an input selects the parser ({@link #selector}) and the rest is
 * its payload ({@link #payload}); seeds carry the selector of the parser they belong to.
 */
public final class FuzzSeeds {
    private FuzzSeeds() {
    }

    /** One recorded control message: direction {@code S->C} or {@code C->S} and its bytes. */
    public record Segment(String direction, byte[] data) {
    }

    /** The control messages recorded for a vector ({@code open}, {@code auth}, {@code enc}, {@code mixed}, ...). */
    public static List<Segment> controlSegments(String vector) {
        List<Segment> out = new ArrayList<>();
        for (String line : lines(vector + "-control-segments.tsv")) {
            String[] f = line.split("\t");
            out.add(new Segment(f[1], HexFormat.of().parseHex(f[3])));
        }
        return out;
    }

    /** Every control message of a vector in one direction, concatenated: what one side read. */
    public static byte[] controlStream(String vector, String direction) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (Segment s : controlSegments(vector)) {
            if (s.direction().equals(direction)) {
                all.writeBytes(s.data());
            }
        }
        return all.toByteArray();
    }

    /** A recorded UDP test datagram of a vector. */
    public record Datagram(int srcPort, int dstPort, byte[] data) {
    }

    /** The recorded UDP test datagrams of a vector, in order. */
    public static List<Datagram> testDatagrams(String vector) {
        List<Datagram> out = new ArrayList<>();
        for (String line : lines(vector + "-test-udp.tsv")) {
            String[] f = line.split("\t");
            out.add(new Datagram(Integer.parseInt(f[1]), Integer.parseInt(f[2]), HexFormat.of().parseHex(f[5])));
        }
        return out;
    }

    /** The bytes of a recorded file. */
    public static byte[] bytes(String name) {
        try {
            return Files.readAllBytes(RecordedVectors.file(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A seed for a {@code byte[]} fuzz test, named for the test report. */
    public static Arguments seed(String name, byte[] input) {
        return Arguments.of(Named.of(name, input));
    }

    /** A seed for the parser {@code selector} of a multi-parser fuzz test. */
    public static Arguments seed(String name, int selector, byte[] payload) {
        byte[] input = new byte[payload.length + 1];
        input[0] = (byte) selector;
        System.arraycopy(payload, 0, input, 1, payload.length);
        return seed(name, input);
    }

    /** The parser an input is for, {@code 0 <= selector < parsers}. */
    public static int selector(byte[] input, int parsers) {
        return input.length == 0 ? 0 : Byte.toUnsignedInt(input[0]) % parsers;
    }

    /** The input without its selector byte. */
    public static byte[] payload(byte[] input) {
        return input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length);
    }

    /** Seeds of several parsers in one stream. */
    @SafeVarargs
    public static Stream<Arguments> concat(Stream<Arguments>... parts) {
        return Stream.of(parts).flatMap(s -> s);
    }

    /** The first 256 bytes of an input for an assertion message (inputs can be large). */
    public static String show(byte[] input) {
        String hex = HexFormat.of().formatHex(input, 0, Math.min(input.length, 256));
        return input.length + " bytes: " + hex + (input.length > 256 ? "..." : "");
    }

    private static List<String> lines(String name) {
        try {
            List<String> out = new ArrayList<>();
            for (String l : Files.readAllLines(RecordedVectors.file(name))) {
                if (!l.isBlank() && !l.startsWith("#")) {
                    out.add(l);
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
