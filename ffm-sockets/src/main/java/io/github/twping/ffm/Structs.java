package io.github.twping.ffm;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import java.nio.ByteOrder;

/**
 * C struct layouts of glibc on LP64 Linux (x86-64, aarch64) and their field offsets, as constants.
 */
final class Structs {
    static final ValueLayout.OfShort JAVA_SHORT_BE = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    /** Field access inside control buffers, which may be heap segments with byte alignment. */
    static final ValueLayout.OfLong JAVA_LONG_UNALIGNED = JAVA_LONG.withByteAlignment(1);
    static final ValueLayout.OfInt JAVA_INT_UNALIGNED = JAVA_INT.withByteAlignment(1);

    /** struct iovec { void *iov_base; size_t iov_len; } */
    static final StructLayout IOVEC = MemoryLayout.structLayout(
            ADDRESS.withName("iov_base"), JAVA_LONG.withName("iov_len"));

    /** struct msghdr (56 bytes). */
    static final StructLayout MSGHDR = MemoryLayout.structLayout(
            ADDRESS.withName("msg_name"),
            JAVA_INT.withName("msg_namelen"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("msg_iov"),
            JAVA_LONG.withName("msg_iovlen"),
            ADDRESS.withName("msg_control"),
            JAVA_LONG.withName("msg_controllen"),
            JAVA_INT.withName("msg_flags"),
            MemoryLayout.paddingLayout(4));
    static final long MSG_NAME = MSGHDR.byteOffset(groupElement("msg_name"));
    static final long MSG_NAMELEN = MSGHDR.byteOffset(groupElement("msg_namelen"));
    static final long MSG_IOV = MSGHDR.byteOffset(groupElement("msg_iov"));
    static final long MSG_IOVLEN = MSGHDR.byteOffset(groupElement("msg_iovlen"));
    static final long MSG_CONTROL = MSGHDR.byteOffset(groupElement("msg_control"));
    static final long MSG_CONTROLLEN = MSGHDR.byteOffset(groupElement("msg_controllen"));
    static final long MSG_FLAGS = MSGHDR.byteOffset(groupElement("msg_flags"));

    /** struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; } followed by data at CMSG_ALIGN(16). */
    static final StructLayout CMSGHDR = MemoryLayout.structLayout(
            JAVA_LONG.withName("cmsg_len"), JAVA_INT.withName("cmsg_level"), JAVA_INT.withName("cmsg_type"));
    static final long CMSG_LEN = CMSGHDR.byteOffset(groupElement("cmsg_len"));
    static final long CMSG_LEVEL = CMSGHDR.byteOffset(groupElement("cmsg_level"));
    static final long CMSG_TYPE = CMSGHDR.byteOffset(groupElement("cmsg_type"));

    /** struct sockaddr_in (16 bytes); port and address in network byte order. */
    static final StructLayout SOCKADDR_IN = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT_BE.withName("sin_port"),
            MemoryLayout.sequenceLayout(4, JAVA_BYTE).withName("sin_addr"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sin_zero"));
    static final long SIN_ADDR = SOCKADDR_IN.byteOffset(groupElement("sin_addr"));

    /** struct sockaddr_in6 (28 bytes). */
    static final StructLayout SOCKADDR_IN6 = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin6_family"),
            JAVA_SHORT_BE.withName("sin6_port"),
            JAVA_INT.withName("sin6_flowinfo"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("sin6_addr"),
            JAVA_INT.withName("sin6_scope_id"));
    static final long SIN6_ADDR = SOCKADDR_IN6.byteOffset(groupElement("sin6_addr"));
    static final long SIN6_SCOPE_ID = SOCKADDR_IN6.byteOffset(groupElement("sin6_scope_id"));
    /** Offsets common to both families. */
    static final long SA_FAMILY = 0;
    static final long SA_PORT = 2;
    /** struct sockaddr_storage. */
    static final int SOCKADDR_STORAGE_BYTES = 128;

    /** struct timespec { time_t tv_sec; long tv_nsec; } (16 bytes); struct timeval has the same shape. */
    static final StructLayout TIMESPEC = MemoryLayout.structLayout(JAVA_LONG.withName("tv_sec"), JAVA_LONG.withName("tv_nsec"));

    /** struct scm_timestamping { struct timespec ts[3]; }: ts[0] software, ts[2] raw hardware. */
    static final long SCM_TIMESTAMPING_BYTES = 3 * TIMESPEC.byteSize();

    /** struct sock_extended_err (16 bytes), the IP_RECVERR / IPV6_RECVERR cmsg of the error queue. */
    static final StructLayout SOCK_EXTENDED_ERR = MemoryLayout.structLayout(
            JAVA_INT.withName("ee_errno"),
            JAVA_BYTE.withName("ee_origin"),
            JAVA_BYTE.withName("ee_type"),
            JAVA_BYTE.withName("ee_code"),
            JAVA_BYTE.withName("ee_pad"),
            JAVA_INT.withName("ee_info"),
            JAVA_INT.withName("ee_data"));
    static final long EE_ERRNO = SOCK_EXTENDED_ERR.byteOffset(groupElement("ee_errno"));
    static final long EE_ORIGIN = SOCK_EXTENDED_ERR.byteOffset(groupElement("ee_origin"));
    static final long EE_INFO = SOCK_EXTENDED_ERR.byteOffset(groupElement("ee_info"));
    static final long EE_DATA = SOCK_EXTENDED_ERR.byteOffset(groupElement("ee_data"));

    /** struct pollfd { int fd; short events; short revents; } (8 bytes). */
    static final StructLayout POLLFD = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));

    /** struct timex of glibc (208 bytes), read by ntp_adjtime(3); verified with offsetof on glibc 2.36. */
    static final StructLayout TIMEX = MemoryLayout.structLayout(
            JAVA_INT.withName("modes"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("offset"),
            JAVA_LONG.withName("freq"),
            JAVA_LONG.withName("maxerror"),
            JAVA_LONG.withName("esterror"),
            JAVA_INT.withName("status"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("constant"),
            JAVA_LONG.withName("precision"),
            JAVA_LONG.withName("tolerance"),
            TIMESPEC.withName("time"),
            JAVA_LONG.withName("tick"),
            JAVA_LONG.withName("ppsfreq"),
            JAVA_LONG.withName("jitter"),
            JAVA_INT.withName("shift"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("stabil"),
            JAVA_LONG.withName("jitcnt"),
            JAVA_LONG.withName("calcnt"),
            JAVA_LONG.withName("errcnt"),
            JAVA_LONG.withName("stbcnt"),
            JAVA_INT.withName("tai"),
            MemoryLayout.paddingLayout(44));
    static final long TIMEX_MODES = TIMEX.byteOffset(groupElement("modes"));
    static final long TIMEX_OFFSET = TIMEX.byteOffset(groupElement("offset"));
    static final long TIMEX_MAXERROR = TIMEX.byteOffset(groupElement("maxerror"));
    static final long TIMEX_ESTERROR = TIMEX.byteOffset(groupElement("esterror"));
    static final long TIMEX_STATUS = TIMEX.byteOffset(groupElement("status"));
    static final long TIMEX_TAI = TIMEX.byteOffset(groupElement("tai"));

    private Structs() {
    }

    /** Reads a struct timespec at {@code offset} as nanoseconds (0 stays 0: "no timestamp"). */
    static long timespecNs(MemorySegment segment, long offset) {
        long seconds = segment.get(JAVA_LONG_UNALIGNED, offset);
        long nanos = segment.get(JAVA_LONG_UNALIGNED, offset + 8);
        return seconds * 1_000_000_000L + nanos;
    }

    /** Writes nanoseconds as a struct timespec at {@code offset}. */
    static void timespecNs(MemorySegment segment, long offset, long ns) {
        segment.set(JAVA_LONG_UNALIGNED, offset, Math.floorDiv(ns, 1_000_000_000L));
        segment.set(JAVA_LONG_UNALIGNED, offset + 8, Math.floorMod(ns, 1_000_000_000L));
    }
}
