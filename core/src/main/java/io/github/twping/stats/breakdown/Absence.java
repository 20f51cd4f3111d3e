package io.github.twping.stats.breakdown;

/** Why a component of a packet is not known; the outputs give this reason instead of a value. */
public enum Absence {
    /** The packet was lost: no reply, no stamps after the send. */
    LOST("lost"),
    /**
     * The client kept no stamps of this record: a file re-read with {@code --report}, a record beyond the side
     * table's capacity, or a run that asked for no output showing the breakdown.
     */
    NOT_RECORDED("not_recorded"),
    /** The kernel gave no TX stamp of the packet (not supported, or it arrived after the reply). */
    NO_KERNEL_TX_STAMP("no_kernel_tx_stamp"),
    /** The reply had no kernel RX stamp (t4 was read in user space: the wake-up is inside {@code back}). */
    NO_KERNEL_RX_STAMP("no_kernel_rx_stamp"),
    /**
     * The protocol carries no reflector TX stamp: TWAMP, TWAMP-Light, or STAMP without Follow-Up Telemetry (the
     * reflector's stack time is inside {@code back}).
     */
    NO_FOLLOW_UP_TELEMETRY("no_follow_up_telemetry"),
    /** Follow-Up Telemetry was asked for but no later reply reported this reply's kernel TX stamp. */
    FOLLOW_UP_NOT_RECEIVED("follow_up_not_received"),
    /**
     * The {@code packet} events of {@code --json-stream} are written while the session runs, before the next reply
     * brings this reply's Follow-Up Telemetry; {@code --csv} and {@code --json} have it.
     */
    FOLLOW_UP_NOT_YET("follow_up_not_yet");

    private final String key;

    Absence(String key) {
        this.key = key;
    }

    /** @return the stable name of the outputs */
    public String key() {
        return key;
    }
}
