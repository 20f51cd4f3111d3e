package io.github.twping.config;

import java.util.Optional;

/**
 * The local UDP port range for test sockets ({@code -P}, docs/CLI.md); {@code 0-0} means "let the kernel
 * choose".
 *
 * @param low  first port of the range, 0..65535
 * @param high last port of the range, {@code low..65535}
 */
public record PortRange(int low, int high) {
    /** Kernel-chosen (ephemeral) port. */
    public static final PortRange EPHEMERAL = new PortRange(0, 0);
    /** The C default when {@code -P} is not given (the man page wrongly says 0). */
    public static final PortRange DEFAULT = new PortRange(8760, 9960);

    private static final int MAX_PORT = 65535;

    /** Validates the bounds. */
    public PortRange {
        if (low < 0 || high > MAX_PORT || high < low) {
            throw new IllegalArgumentException("invalid port range " + low + "-" + high);
        }
    }

    /**
     * Parses a {@code -P} argument: exactly {@code 0} (ephemeral); or optional white space, decimal
     * {@code low}, optional white space, then either the end (a single port; a zero written any other
     * way than {@code 0}, e.g. {@code 00}, is rejected) or {@code -}, optional white space and decimal
     * {@code high >= low}. Text after {@code high} is ignored (C quirk: {@code 9100-9101xyz} is accepted).
     *
     * @return the range, or empty for {@code Invalid test port range specified.}
     */
    public static Optional<PortRange> parse(String arg) {
        if (arg.equals("0")) {
            return Optional.of(EPHEMERAL);
        }
        CNumbers.IntegerParse low = CNumbers.strtoul(arg, 0, 10);
        if (low.end() == 0 || Long.compareUnsigned(low.value(), MAX_PORT) > 0) {
            return Optional.empty();
        }
        int i = low.end();
        while (i < arg.length() && CNumbers.isSpace(arg.charAt(i))) {
            i++;
        }
        int lowPort = (int) low.value();
        if (i == arg.length()) {
            return lowPort == 0 ? Optional.empty() : Optional.of(new PortRange(lowPort, lowPort));
        }
        if (arg.charAt(i) != '-') {
            return Optional.empty();
        }
        CNumbers.IntegerParse high = CNumbers.strtoul(arg, i + 1, 10);
        if (high.end() == i + 1 || Long.compareUnsigned(high.value(), MAX_PORT) > 0 || high.value() < lowPort) {
            return Optional.empty();
        }
        return Optional.of(new PortRange(lowPort, (int) high.value()));
    }

    /** @return true for 0-0: the kernel chooses the port */
    public boolean isEphemeral() {
        return high == 0;
    }

    /** @return how many ports the range holds */
    public int size() {
        return high - low + 1;
    }

    /**
     * The first port to try: {@code low + floor(r / 4294967295 * size())} for the unsigned 32-bit random
     * number {@code r}, as the C client computes it. For {@code r = 2^32-1} that formula gives
     * {@code high + 1}; this port wraps it to {@code low} instead of trying a port outside the range.
     *
     * @param random32 a random int, read as unsigned
     */
    public int firstCandidate(int random32) {
        double r = Integer.toUnsignedLong(random32);
        long offset = (long) Math.floor(r / 4294967295.0 * size());
        return low + (int) (offset % size());
    }

    /** @return the port to try after {@code port} failed with EADDRINUSE (wraps to {@code low}) */
    public int nextCandidate(int port) {
        return low + (port - low + 1) % size();
    }

    @Override
    public String toString() {
        return low + "-" + high;
    }
}
