package io.github.twping.stats.breakdown;

/**
 * The parts of one packet's delay (docs/STATISTICS.md, delay breakdown), in the order the packet meets them. Every
 * component but {@link #PACING_LATENESS} lies on the packet's path from the user-space send stamp to the moment the
 * receiver thread saw the reply, and those add up to that span ({@link PacketBreakdown#spanNs()}).
 */
public enum Component {
    /** The user-space send stamp minus the scheduled send time: how late the sender was (before the span). */
    PACING_LATENESS("pacing_lateness", false),
    /** The kernel's TX stamp minus the user-space stamp written into the packet. */
    SENDER_STACK("sender_stack", true),
    /** t2 minus the kernel's TX stamp, else minus the user-space send stamp. */
    FORWARD("forward", true),
    /** t3 minus t2, as the reply carried them. */
    REFLECTOR_RESIDENCE("reflector_residence", true),
    /** The reflector's kernel TX stamp of the reply (STAMP Follow-Up Telemetry) minus the reply's t3. */
    REFLECTOR_STACK("reflector_stack", true),
    /** t4 (the kernel's RX stamp, else the user-space one) minus the Follow-Up t3, else minus t3. */
    BACK("back", true),
    /** The return of the receive call that delivered the reply minus the kernel's RX stamp. */
    RECEIVER_WAKEUP("receiver_wakeup", true);

    /** The components, in path order (a shared array: do not modify). */
    static final Component[] ALL = values();
    /** Number of components. */
    public static final int COUNT = ALL.length;

    private final String key;
    private final boolean onPath;

    Component(String key, boolean onPath) {
        this.key = key;
        this.onPath = onPath;
    }

    /** @return the stable name of the JSON, CSV and text outputs ({@code sender_stack}, ...) */
    public String key() {
        return key;
    }

    /** @return true when the component is part of the span (all but {@link #PACING_LATENESS}) */
    public boolean onPath() {
        return onPath;
    }
}
