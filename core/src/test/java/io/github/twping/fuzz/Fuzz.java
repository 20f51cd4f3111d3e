package io.github.twping.fuzz;

import io.github.twping.testdata.RecordedVectors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The project's mutation fuzzer for parsers of peer input (docs/TESTING.md, fuzzing): deterministic
 * (seeded {@link SplittableRandom}), seeded from the recorded C vectors, bounded in inputs and time.
 *
 * <p>Budget: each target runs {@code base x twping.fuzz.scale} inputs (system property, default 1; the long
 * run uses e.g. 200) and stops early after {@code twping.fuzz.seconds} seconds per target (default 20).
 * The random seed is {@code twping.fuzz.seed} (default fixed, so CI is reproducible; a failure message names
 * the seed and the input index so that it can be replayed). Every target appends one line to
 * {@code target/fuzz-report.tsv} (target, inputs, failures, seconds).
 */
public final class Fuzz {
    private static final long DEFAULT_SEED = 0x7477_7069_6e67L;
    private static final byte[] INTERESTING = {0, 1, 0x7f, (byte) 0x80, (byte) 0xff, (byte) 0xfe, 0x0a, 0x1b, 0x5c};

    private Fuzz() {
    }

    /** The random seed of this run. */
    public static long seed() {
        return Long.getLong("twping.fuzz.seed", DEFAULT_SEED);
    }

    /** Inputs for a target whose CI budget is {@code base}. */
    public static int inputs(int base) {
        return (int) Math.min(Integer.MAX_VALUE, (long) base * Math.max(1, Integer.getInteger("twping.fuzz.scale", 1)));
    }

    /** Deadline (System.nanoTime) of one target. */
    public static long deadlineNs() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(Integer.getInteger("twping.fuzz.seconds", 20));
    }

    /** A generator for one target: the run's seed mixed with the target's name. */
    public static SplittableRandom random(String target) {
        return new SplittableRandom(seed() ^ target.hashCode() * 0x9E37_79B9_7F4A_7C15L);
    }

    /**
     * One mutation of {@code seed}: 1 to 4 of bit flip, interesting byte, random byte run, deletion,
     * insertion, duplication, truncation, extension, or a splice with {@code other}.
     */
    public static byte[] mutate(byte[] seed, byte[] other, SplittableRandom r) {
        byte[] b = seed.clone();
        int rounds = 1 + r.nextInt(4);
        for (int k = 0; k < rounds; k++) {
            int n = b.length;
            switch (r.nextInt(9)) {
                case 0 -> {
                    if (n > 0) {
                        int i = r.nextInt(n);
                        b[i] ^= (byte) (1 << r.nextInt(8));
                    }
                }
                case 1 -> {
                    if (n > 0) {
                        b[r.nextInt(n)] = INTERESTING[r.nextInt(INTERESTING.length)];
                    }
                }
                case 2 -> {
                    if (n > 0) {
                        int at = r.nextInt(n);
                        int len = Math.min(n - at, 1 + r.nextInt(8));
                        for (int i = 0; i < len; i++) {
                            b[at + i] = (byte) r.nextInt(256);
                        }
                    }
                }
                case 3 -> {
                    if (n > 0) {
                        int at = r.nextInt(n);
                        int len = Math.min(n - at, 1 + r.nextInt(16));
                        b = concat(slice(b, 0, at), slice(b, at + len, n));
                    }
                }
                case 4 -> {
                    int at = n == 0 ? 0 : r.nextInt(n + 1);
                    byte[] ins = new byte[1 + r.nextInt(16)];
                    for (int i = 0; i < ins.length; i++) {
                        ins[i] = (byte) r.nextInt(256);
                    }
                    b = concat(concat(slice(b, 0, at), ins), slice(b, at, n));
                }
                case 5 -> {
                    if (n > 0) {
                        int at = r.nextInt(n);
                        int len = Math.min(n - at, 1 + r.nextInt(32));
                        b = concat(concat(slice(b, 0, at + len), slice(b, at, at + len)), slice(b, at + len, n));
                    }
                }
                case 6 -> b = slice(b, 0, n == 0 ? 0 : r.nextInt(n + 1));
                case 7 -> b = concat(b, new byte[1 + r.nextInt(64)]);
                default -> {
                    if (other != null && other.length > 0 && n > 0) {
                        int at = r.nextInt(n);
                        int from = r.nextInt(other.length);
                        b = concat(slice(b, 0, at), slice(other, from, other.length));
                    }
                }
            }
        }
        return b;
    }

    /** A mutation of a text seed (bytes as ISO-8859-1, so every byte is a char). */
    public static String mutate(String seed, String other, SplittableRandom r) {
        return new String(mutate(seed.getBytes(StandardCharsets.ISO_8859_1),
                other == null ? null : other.getBytes(StandardCharsets.ISO_8859_1), r), StandardCharsets.ISO_8859_1);
    }

    /** A random element. */
    public static <T> T pick(List<T> list, SplittableRandom r) {
        return list.get(r.nextInt(list.size()));
    }

    private static byte[] slice(byte[] b, int from, int to) {
        return java.util.Arrays.copyOfRange(b, from, to);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
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

    /** The recorded UDP test datagrams of a vector: {srcPort, bytes} pairs in order. */
    public record Datagram(int srcPort, int dstPort, byte[] data) {
    }

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

    /** Appends a target's figures to {@code target/fuzz-report.tsv} (read by the long-run script). */
    public static void report(String target, long inputs, long failures, long startNs) {
        double seconds = (System.nanoTime() - startNs) / 1e9;
        String line = String.format(java.util.Locale.ROOT, "%s\t%d\t%d\t%.1f\t%d%n", target, inputs, failures, seconds,
                seed());
        try {
            Path file = Path.of("target", "fuzz-report.tsv");
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first {@code max} characters of a value for a failure message (inputs can be large). */
    public static String show(byte[] input) {
        String hex = HexFormat.of().formatHex(input, 0, Math.min(input.length, 256));
        return input.length + " bytes: " + hex + (input.length > 256 ? "..." : "");
    }
}
