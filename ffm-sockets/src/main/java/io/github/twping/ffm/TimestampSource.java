package io.github.twping.ffm;

/** Where a receive timestamp came from, best first. */
public enum TimestampSource {
    /** Stamped by the network card (SCM_TIMESTAMPING ts[2]). */
    KERNEL_HARDWARE,
    /** Stamped by the kernel when the packet arrived (SCM_TIMESTAMPING ts[0] or SCM_TIMESTAMPNS). */
    KERNEL_SOFTWARE,
    /** Read from CLOCK_REALTIME in user space after the receive call returned. */
    USER
}
