package io.github.twping.testing.perf.compare;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Options of {@link CompareRunner}; {@link #parse} throws IllegalArgumentException with one line.
 *
 * @param rounds     rounds; each runs every client once against every reflector, alternating
 * @param count      packets per session ({@code -c})
 * @param schedule   the {@code -i} schedule, e.g. {@code 0.002f} (500/s fixed) or {@code 0.002} (exponential)
 * @param lossTimeout {@code -L} seconds
 * @param reflectors which reflectors: {@code c-twampd}, {@code twampd}, {@code loopback}, {@code stamp}
 *                   ({@code twampd --stamp}), {@code light} ({@code twampd --light})
 * @param oursArgs   extra arguments for our client (e.g. {@code --cpu 0})
 * @param twampdArgs extra arguments for our twampd
 * @param floor      also run the C-free ping-pong floor once per round
 * @param keepDir    where to keep the raw outputs (null: a temporary directory, deleted)
 * @param variants   further configurations of our client, by label (e.g. {@code spin0} → {@code --spin 0}),
 *                   each run as one more client in every round
 * @param nice       niceness of every client and server process (0: unchanged; negative needs root): on a
 *                   shared machine a negative value keeps other builds from dominating the figures
 * @param sampleMs   how often the harness samples where the client's and the server's threads run, ms (0: never;
 *                   each sample reads every thread's {@code /proc} stat, so it is work on the machine under test)
 */
public record CompareOptions(int rounds, int count, String schedule, double lossTimeout, List<String> reflectors,
                             List<String> oursArgs, List<String> twampdArgs, boolean floor, String keepDir, int nice,
                             Map<String, List<String>> variants, int sampleMs) {
    public static final List<String> REFLECTORS = List.of("c-twampd", "twampd", "loopback", "stamp", "light");
    /** The reflectors without --reflectors: the TWAMP ones, where the C client can take part. */
    public static final List<String> DEFAULT_REFLECTORS = REFLECTORS.subList(0, 3);

    /**
     * The thread-placement sampling interval without --sample-ms, ms: none. Sampling every 5 ms (the default until 5
     * December 2026) put the harness's reads of each thread's {@code /proc} stat, 17 threads for our client and 1 for
     * C's, on the machine under test, and the forward leg's p99.9 and maximum against the C twampd were 2.5 and 6.2
     * times C's with it against 0.7 and 0.4 without (docs/notes/2026-12-05-quiet-runs-5.md).
     */
    public static final int DEFAULT_SAMPLE_MS = 0;

    public static final String USAGE = """
            usage: compare-c.sh [--rounds N] [--count N] [--schedule SPEC] [--loss-timeout S]
                                [--reflectors c-twampd,twampd,loopback,stamp,light] [--ours-args 'ARGS'] [--twampd-args 'ARGS']
                                [--no-floor] [--keep DIR] [--nice N] [--variant LABEL=ARGS]... [--sample-ms N]
            environment: TWPING_C, TWAMPD_C (the C binaries; unset = that half is skipped)""";

    /** Parses the command line. */
    public static CompareOptions parse(String[] args) {
        int rounds = 3;
        int count = 2000;
        String schedule = "0.002f";
        double lossTimeout = 1;
        List<String> reflectors = DEFAULT_REFLECTORS;
        List<String> oursArgs = List.of();
        List<String> twampdArgs = List.of();
        boolean floor = true;
        String keep = null;
        int nice = 0;
        int sampleMs = DEFAULT_SAMPLE_MS;
        Map<String, List<String>> variants = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--rounds" -> rounds = positive(a, value(args, ++i, a));
                case "--count" -> count = positive(a, value(args, ++i, a));
                case "--schedule" -> {
                    schedule = value(args, ++i, a);
                    meanIntervalSeconds(schedule);
                }
                case "--loss-timeout" -> {
                    String v = value(args, ++i, a);
                    try {
                        lossTimeout = Double.parseDouble(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(a + ": '" + v + "' is not a number");
                    }
                    if (!(lossTimeout > 0)) {
                        throw new IllegalArgumentException(a + ": must be > 0");
                    }
                }
                case "--reflectors" -> {
                    reflectors = List.of(value(args, ++i, a).split(","));
                    for (String r : reflectors) {
                        if (!REFLECTORS.contains(r)) {
                            throw new IllegalArgumentException(a + ": unknown reflector '" + r + "' (c-twampd, twampd, loopback, stamp, light)");
                        }
                    }
                }
                case "--ours-args" -> oursArgs = words(value(args, ++i, a));
                case "--twampd-args" -> twampdArgs = words(value(args, ++i, a));
                case "--no-floor" -> floor = false;
                case "--keep" -> keep = value(args, ++i, a);
                case "--variant" -> {
                    String v = value(args, ++i, a);
                    int eq = v.indexOf('=');
                    String label = eq < 0 ? "" : v.substring(0, eq).trim();
                    if (eq < 0 || !label.matches("[A-Za-z0-9_.:-]+") || REFLECTORS.contains(label)
                            || List.of("ours", "C", "ours (again)").contains(label) || variants.containsKey(label)) {
                        throw new IllegalArgumentException(a + ": expected LABEL=ARGS with a new label of letters, digits, _.:- ('" + v + "')");
                    }
                    variants.put(label, words(v.substring(eq + 1)));
                }
                case "--nice" -> {
                    String v = value(args, ++i, a);
                    try {
                        nice = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException(a + ": '" + v + "' is not an integer -20..19");
                    }
                    if (nice < -20 || nice > 19) {
                        throw new IllegalArgumentException(a + ": '" + v + "' is not an integer -20..19");
                    }
                }
                case "--sample-ms" -> {
                    String v = value(args, ++i, a);
                    try {
                        sampleMs = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        sampleMs = -1;
                    }
                    if (sampleMs < 0 || sampleMs > 1000) {
                        throw new IllegalArgumentException(a + ": '" + v + "' is not an integer 0..1000 (0: no sampling)");
                    }
                }
                default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
            }
        }
        return new CompareOptions(rounds, count, schedule, lossTimeout, reflectors, oursArgs, twampdArgs, floor, keep,
                nice, Collections.unmodifiableMap(variants), sampleMs);
    }

    /** The packet rate of the schedule, packets per second. */
    public double rate() {
        return 1.0 / meanIntervalSeconds(schedule);
    }

    /**
     * The mean interval of a single-slot {@code -i} spec ({@code 0.002}, {@code 0.002f}, {@code 0.002e}),
     * seconds.
     */
    static double meanIntervalSeconds(String spec) {
        String s = spec.toLowerCase(Locale.ROOT);
        if (s.endsWith("f") || s.endsWith("e")) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            double v = Double.parseDouble(s);
            if (v > 0 && !spec.contains(",")) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("--schedule: '" + spec + "' is not one interval in seconds (0.002, 0.002f)");
    }

    private static List<String> words(String s) {
        return s.isBlank() ? List.of() : new ArrayList<>(Arrays.asList(s.trim().split("\\s+")));
    }

    private static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + ": missing value");
        }
        return args[i];
    }

    private static int positive(String name, String v) {
        try {
            int n = Integer.parseInt(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(name + ": '" + v + "' is not a positive integer");
    }
}
