package io.github.twping.stats.breakdown;

/**
 * Where one stamp of a component came from (its provenance). Which host took it follows from the component: the
 * first stamp of {@link Component#FORWARD} is the client's, the second the reflector's, and so on.
 */
public enum StampOrigin {
    /** The send schedule (the start of {@link Component#PACING_LATENESS}). */
    SCHEDULE("schedule"),
    /** {@code CLOCK_REALTIME} read in user space. */
    USER("user"),
    /** The kernel's software timestamp. */
    KERNEL_SOFTWARE("kernel_software"),
    /** The network card's hardware timestamp. */
    KERNEL_HARDWARE("kernel_hardware"),
    /** A reflector's stamp taken by its control plane (RFC 8972 §4.3). */
    CONTROL_PLANE("control_plane"),
    /** A reflector's stamp of a kind it did not report (TWAMP, STAMP without Timestamp Information). */
    REFLECTOR("reflector"),
    /** Not known (a file re-read without the stamps of its measurement). */
    UNKNOWN("unknown");

    private final String key;

    StampOrigin(String key) {
        this.key = key;
    }

    /** @return the stable name of the outputs */
    public String key() {
        return key;
    }
}
