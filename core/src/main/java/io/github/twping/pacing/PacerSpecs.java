package io.github.twping.pacing;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names of the pacing strategies as the benchmarks and the runner take them, and the factory behind them.
 *
 * <ul>
 *   <li>{@code busy-spin}: {@link ParkThenSpinPacer#spinOnly}</li>
 *   <li>{@code park}: {@link ParkThenSpinPacer#parkOnly}</li>
 *   <li>{@code park-then-spin-<N>us}: {@link ParkThenSpinPacer} with a window of N µs</li>
 *   <li>{@code backoff-<N>us}: {@link BackoffPacer} (Agrona {@code BackoffIdleStrategy}) with a maximum park of N µs</li>
 * </ul>
 */
public final class PacerSpecs {
    /** The strategies measured by default, cheapest CPU last. */
    public static final List<String> DEFAULTS = List.of(
            "busy-spin", "park-then-spin-100us", "park-then-spin-50us", "park-then-spin-20us", "backoff-1000us", "park");

    private static final Pattern WITH_MICROS = Pattern.compile("(park-then-spin|backoff)-([0-9]{1,7})us");

    private PacerSpecs() {
    }

    /**
     * Creates the pacer a name stands for.
     *
     * @param spec  a strategy name (see the class comment).
     * @param clock the clock the pacer uses.
     * @return the pacer, or {@code null} if the name is unknown.
     */
    public static Pacer create(String spec, PacingClock clock) {
        switch (spec) {
            case "busy-spin":
                return ParkThenSpinPacer.spinOnly(clock);
            case "park":
                return ParkThenSpinPacer.parkOnly(clock);
            default:
                break;
        }
        Matcher matcher = WITH_MICROS.matcher(spec);
        if (!matcher.matches()) {
            return null;
        }
        long ns = Long.parseLong(matcher.group(2)) * 1_000;
        if (matcher.group(1).equals("park-then-spin")) {
            return new ParkThenSpinPacer(clock, ns);
        }
        return ns > 0 ? new BackoffPacer(clock, ns) : null;
    }

    /** @return a one-line description of the accepted names, for error messages. */
    public static String accepted() {
        return "busy-spin, park, park-then-spin-<N>us, backoff-<N>us (N > 0)";
    }
}
