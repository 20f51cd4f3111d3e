package io.github.twping.ffm;

/** Which kernel timestamps a socket asks for (SO_TIMESTAMPING); each level includes the previous one. */
public enum Timestamping {
    /** No kernel timestamps: receive times are read in user space. */
    NONE,
    /** Kernel software RX timestamps. */
    RX_SOFTWARE,
    /** Kernel software RX timestamps and software TX timestamps through the error queue, matched by packet id. */
    RX_TX_SOFTWARE,
    /** As {@link #RX_TX_SOFTWARE}, plus the hardware RX/TX flags (delivered only where the NIC is configured for it). */
    HARDWARE
}
