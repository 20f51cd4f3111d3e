package io.github.twping.session;

/**
 * Deliberate reflector misbehaviour for tests and the test stand; never enabled by default.
 * Packet indices count accepted (source-checked, HMAC-valid) sender packets from 1.
 *
 * @param dropEveryN         do not send the reply of every Nth packet (0 = off); the reply still uses up a
 *                           reflector sequence number, as a reply lost on the way back would
 * @param duplicateEveryN    send the reply of every Nth packet twice (0 = off)
 * @param delayNs            hold every reply this long after it is stamped and sealed, before sending it, so it
 *                           looks like extra reverse-path delay (0 = off)
 * @param corruptHmacEveryN  flip a bit of the reply HMAC of every Nth packet (0 = off; A and E modes only)
 */
public record ReflectorFaultInjection(int dropEveryN, int duplicateEveryN, long delayNs, int corruptHmacEveryN) {
    /** No faults. */
    public static final ReflectorFaultInjection NONE = new ReflectorFaultInjection(0, 0, 0, 0);

    public ReflectorFaultInjection {
        if (dropEveryN < 0 || duplicateEveryN < 0 || delayNs < 0 || corruptHmacEveryN < 0) {
            throw new IllegalArgumentException("fault injection values must be >= 0");
        }
    }

    /** Whether any fault is active. */
    public boolean active() {
        return dropEveryN > 0 || duplicateEveryN > 0 || delayNs > 0 || corruptHmacEveryN > 0;
    }

    /**
     * Parses {@code drop=N,dup=N,delay-us=D,corrupt=N} (any subset, in any order); empty or "none" = {@link #NONE}.
     */
    public static ReflectorFaultInjection parse(String spec) {
        if (spec == null || spec.isBlank() || spec.strip().equals("none")) {
            return NONE;
        }
        int drop = 0;
        int dup = 0;
        long delay = 0;
        int corrupt = 0;
        for (String item : spec.split(",")) {
            String[] kv = item.strip().split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("fault injection: expected key=value, got \"" + item.strip() + "\"");
            }
            long v;
            try {
                v = Long.parseLong(kv[1].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("fault injection: bad number in \"" + item.strip() + "\"");
            }
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("fault injection: value out of range in \"" + item.strip() + "\"");
            }
            switch (kv[0].strip()) {
                case "drop" -> drop = (int) v;
                case "dup" -> dup = (int) v;
                case "delay-us" -> delay = v * 1000L;
                case "corrupt" -> corrupt = (int) v;
                default -> throw new IllegalArgumentException("fault injection: unknown key \"" + kv[0].strip()
                        + "\" (drop, dup, delay-us, corrupt)");
            }
        }
        return new ReflectorFaultInjection(drop, dup, delay, corrupt);
    }
}
