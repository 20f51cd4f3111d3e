package io.github.twping.testing.perf;

/**
 * Our client against our embedded reflector at a high rate on loopback: {@code LoopbackRttRunner highrate}
 * (20 000 packets/s, 100 000 packets by default; the same options).
 */
public final class HighRateRunner {
    private HighRateRunner() {
    }

    /** Entry point: the arguments follow the mode word of {@link LoopbackRttRunner}. */
    public static void main(String[] args) {
        String[] all = new String[args.length + 1];
        all[0] = "highrate";
        System.arraycopy(args, 0, all, 1, args.length);
        System.exit(LoopbackRttRunner.run(all, System.out, System.err));
    }
}
