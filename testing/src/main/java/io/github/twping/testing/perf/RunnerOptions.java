package io.github.twping.testing.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The perftest runner's command line, parsed.
 *
 * @param mode               {@code loopback} or {@code highrate}
 * @param rates              packets per second, one set of runs per rate
 * @param seconds            per-run sending time when no count is given (packets = rate × seconds)
 * @param count              packets per run, or 0 to derive it from {@code seconds}
 * @param clients            client socket kinds: {@code kernel}, {@code user}, {@code nio}
 * @param spinNs             sender spin window (twping's {@code --spin})
 * @param lossTimeoutSeconds loss timeout L of each session
 * @param deadlineSeconds    wall-time limit per run, or 0 for 2 × the nominal sending time + 30 s
 * @param baseline           also run the ping-pong baseline per rate
 */
public record RunnerOptions(String mode, List<Double> rates, double seconds, long count, List<String> clients,
                            long spinNs, double lossTimeoutSeconds, double deadlineSeconds, boolean baseline) {
    /** One-line usage. */
    public static final String USAGE = "usage: perftest [loopback|highrate] [--rates R1,R2] [--rate R] [--seconds S]"
            + " [--count N] [--clients kernel,user,nio] [--spin MICROS] [--loss-timeout S] [--deadline S]"
            + " [--no-baseline]";
    private static final Set<String> CLIENT_KINDS = Set.of("kernel", "user", "nio");
    private static final long MAX_PACKETS = 10_000_000;

    /** Parses the arguments; throws {@link IllegalArgumentException} with one clear message. */
    public static RunnerOptions parse(String[] args) {
        int i = 0;
        String mode = "loopback";
        if (args.length > 0 && !args[0].startsWith("--")) {
            mode = args[0];
            if (!mode.equals("loopback") && !mode.equals("highrate")) {
                throw new IllegalArgumentException("unknown mode '" + mode + "' (loopback or highrate)");
            }
            i = 1;
        }
        boolean high = mode.equals("highrate");
        List<Double> rates = high ? List.of(20_000.0) : List.of(1_000.0, 10_000.0);
        double seconds = 3;
        long count = high ? 100_000 : 0;
        List<String> clients = high ? List.of("kernel") : List.of("kernel", "user", "nio");
        long spinNs = 100_000;
        double loss = 1;
        double deadline = 0;
        boolean baseline = !high;
        for (; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--no-baseline")) {
                baseline = false;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--rates", "--rate" -> rates = parseRates(v);
                case "--seconds" -> seconds = positive(a, v, 3600);
                case "--count" -> count = (long) positive(a, v, MAX_PACKETS);
                case "--clients" -> clients = parseClients(v);
                case "--spin" -> spinNs = (long) (nonNegative(a, v, 1_000_000) * 1_000);
                case "--loss-timeout" -> loss = positive(a, v, 60);
                case "--deadline" -> deadline = positive(a, v, 3600);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return new RunnerOptions(mode, rates, seconds, count, clients, spinNs, loss, deadline, baseline);
    }

    /** Packets per run at {@code ratePps}: the count, else rate × seconds (at least 1). */
    public long countFor(double ratePps) {
        return count > 0 ? count : Math.max(1, Math.round(ratePps * seconds));
    }

    /** Wall-time limit of one run, ns: the given deadline, else twice the nominal sending time + 30 s. */
    public long deadlineNs(double ratePps, long packets) {
        double s = deadlineSeconds > 0 ? deadlineSeconds : 2 * packets / ratePps + 30;
        return LoopbackRttRunner.secondsToNs(s);
    }

    private static List<Double> parseRates(String v) {
        List<Double> out = new ArrayList<>();
        for (String s : v.split(",", -1)) {
            out.add(positive("--rates", s, 1_000_000));
        }
        return List.copyOf(out);
    }

    private static List<String> parseClients(String v) {
        List<String> out = new ArrayList<>();
        for (String s : v.split(",", -1)) {
            if (!CLIENT_KINDS.contains(s)) {
                throw new IllegalArgumentException("--clients: unknown kind '" + s + "' (kernel, user, nio)");
            }
            out.add(s);
        }
        return List.copyOf(out);
    }

    private static double positive(String option, String v, double max) {
        double d = number(option, v);
        if (!(d > 0) || d > max) {
            throw new IllegalArgumentException(option + ": " + v + " is not in (0, " + max + "]");
        }
        return d;
    }

    private static double nonNegative(String option, String v, double max) {
        double d = number(option, v);
        if (!(d >= 0) || d > max) {
            throw new IllegalArgumentException(option + ": " + v + " is not in [0, " + max + "]");
        }
        return d;
    }

    private static double number(String option, String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": '" + v + "' is not a number");
        }
    }
}
