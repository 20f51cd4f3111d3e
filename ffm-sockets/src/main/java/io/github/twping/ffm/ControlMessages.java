package io.github.twping.ffm;

import java.lang.foreign.MemorySegment;

import static io.github.twping.ffm.SocketConstants.IPV6_HOPLIMIT;
import static io.github.twping.ffm.SocketConstants.IPV6_PKTINFO;
import static io.github.twping.ffm.SocketConstants.IP_PKTINFO;
import static io.github.twping.ffm.SocketConstants.IPV6_RECVERR;
import static io.github.twping.ffm.SocketConstants.IPV6_TCLASS;
import static io.github.twping.ffm.SocketConstants.IP_RECVERR;
import static io.github.twping.ffm.SocketConstants.IP_TOS;
import static io.github.twping.ffm.SocketConstants.IP_TTL;
import static io.github.twping.ffm.SocketConstants.SCM_TIMESTAMPING;
import static io.github.twping.ffm.SocketConstants.SCM_TIMESTAMPNS;
import static io.github.twping.ffm.SocketConstants.SOL_IP;
import static io.github.twping.ffm.SocketConstants.SOL_IPV6;
import static io.github.twping.ffm.SocketConstants.SOL_SOCKET;
import static io.github.twping.ffm.SocketConstants.SO_TIMESTAMPING_NEW;
import static io.github.twping.ffm.SocketConstants.SO_TIMESTAMPNS_NEW;
import static io.github.twping.ffm.Structs.CMSG_LEN;
import static io.github.twping.ffm.Structs.CMSG_LEVEL;
import static io.github.twping.ffm.Structs.CMSG_TYPE;
import static io.github.twping.ffm.Structs.JAVA_INT_UNALIGNED;
import static io.github.twping.ffm.Structs.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Walks and writes ancillary data (cmsg) in a control buffer, by offsets: the CMSG_FIRSTHDR / CMSG_NXTHDR /
 * CMSG_DATA / CMSG_ALIGN macros of glibc, without allocation.
 */
final class ControlMessages {
    /** sizeof(struct cmsghdr) on LP64; also CMSG_ALIGN of it. */
    static final int HEADER_BYTES = 16;
    /** No (more) control message. */
    static final long NONE = -1;

    private ControlMessages() {
    }

    /** CMSG_ALIGN: rounds up to the alignment of size_t (8). */
    static long align(long length) {
        return (length + 7) & ~7L;
    }

    /** CMSG_SPACE: bytes a message with {@code dataBytes} of data occupies, padding included. */
    static long space(long dataBytes) {
        return HEADER_BYTES + align(dataBytes);
    }

    /** CMSG_LEN: the cmsg_len value of a message with {@code dataBytes} of data. */
    static long length(long dataBytes) {
        return HEADER_BYTES + dataBytes;
    }

    /** CMSG_FIRSTHDR: offset of the first message, or {@link #NONE}. */
    static long first(MemorySegment control, long controlLength) {
        return fits(control, 0, controlLength) ? 0 : NONE;
    }

    /** CMSG_NXTHDR: offset of the message after the one at {@code offset}, or {@link #NONE}. */
    static long next(MemorySegment control, long controlLength, long offset) {
        long cmsgLen = control.get(JAVA_LONG_UNALIGNED, offset + CMSG_LEN);
        if (cmsgLen < HEADER_BYTES) {
            return NONE;
        }
        long nextOffset = offset + align(cmsgLen);
        return fits(control, nextOffset, controlLength) ? nextOffset : NONE;
    }

    private static boolean fits(MemorySegment control, long offset, long controlLength) {
        long end = Math.min(controlLength, control.byteSize());
        if (offset + HEADER_BYTES > end) {
            return false;
        }
        long cmsgLen = control.get(JAVA_LONG_UNALIGNED, offset + CMSG_LEN);
        return cmsgLen >= HEADER_BYTES && offset + cmsgLen <= end;
    }

    static int level(MemorySegment control, long offset) {
        return control.get(JAVA_INT_UNALIGNED, offset + CMSG_LEVEL);
    }

    static int type(MemorySegment control, long offset) {
        return control.get(JAVA_INT_UNALIGNED, offset + CMSG_TYPE);
    }

    /** CMSG_DATA: offset of the message's data. */
    static long dataOffset(long offset) {
        return offset + HEADER_BYTES;
    }

    /** Bytes of data in the message (cmsg_len minus the header). */
    static long dataLength(MemorySegment control, long offset) {
        return control.get(JAVA_LONG_UNALIGNED, offset + CMSG_LEN) - HEADER_BYTES;
    }

    /**
     * Writes a message header at {@code offset} for {@code dataBytes} of data (the caller fills the data at
     * {@link #dataOffset}); @return the offset of the next message.
     */
    static long write(MemorySegment control, long offset, int level, int type, long dataBytes) {
        control.set(JAVA_LONG_UNALIGNED, offset + CMSG_LEN, length(dataBytes));
        control.set(JAVA_INT_UNALIGNED, offset + CMSG_LEVEL, level);
        control.set(JAVA_INT_UNALIGNED, offset + CMSG_TYPE, type);
        return offset + space(dataBytes);
    }

    /**
     * Reads the receive metadata (TTL / hop limit, TOS / traffic class, kernel RX timestamp) of one datagram
     * into {@code meta}; fields without a message are left as they are (the caller resets them first).
     */
    static void parseReceive(MemorySegment control, long controlLength, ReceivedPacket meta) {
        for (long at = first(control, controlLength); at != NONE; at = next(control, controlLength, at)) {
            int level = level(control, at);
            int type = type(control, at);
            long data = dataOffset(at);
            long dataLength = dataLength(control, at);
            if (level == SOL_SOCKET) {
                if ((type == SCM_TIMESTAMPING || type == SO_TIMESTAMPING_NEW) && dataLength >= Structs.SCM_TIMESTAMPING_BYTES) {
                    long softwareNs = Structs.timespecNs(control, data);
                    long hardwareNs = Structs.timespecNs(control, data + 2 * Structs.TIMESPEC.byteSize());
                    meta.rxHardwareTimestamp(hardwareNs);
                    if (softwareNs != 0) {
                        meta.rxTimestamp(softwareNs, TimestampSource.KERNEL_SOFTWARE);
                    } else if (hardwareNs != 0) {
                        meta.rxTimestamp(hardwareNs, TimestampSource.KERNEL_HARDWARE);
                    }
                } else if ((type == SCM_TIMESTAMPNS || type == SO_TIMESTAMPNS_NEW) && dataLength >= Structs.TIMESPEC.byteSize()) {
                    meta.rxTimestamp(Structs.timespecNs(control, data), TimestampSource.KERNEL_SOFTWARE);
                }
            } else if (level == SOL_IP) {
                if (type == IP_TTL && dataLength >= 4) {
                    meta.ttl(control.get(JAVA_INT_UNALIGNED, data));
                } else if (type == IP_TOS && dataLength >= 1) {
                    meta.tos(Byte.toUnsignedInt(control.get(JAVA_BYTE, data)));
                } else if (type == IP_PKTINFO && dataLength >= 12) {
                    // struct in_pktinfo { int ipi_ifindex; in_addr ipi_spec_dst; in_addr ipi_addr (header dst) }
                    meta.destination(control, data + 8, 4);
                }
            } else if (level == SOL_IPV6) {
                if (type == IPV6_HOPLIMIT && dataLength >= 4) {
                    meta.ttl(control.get(JAVA_INT_UNALIGNED, data));
                } else if (type == IPV6_TCLASS && dataLength >= 4) {
                    meta.tos(control.get(JAVA_INT_UNALIGNED, data) & 0xff);
                } else if (type == IPV6_PKTINFO && dataLength >= 20) {
                    // struct in6_pktinfo { in6_addr ipi6_addr; int ipi6_ifindex }; a mapped IPv4 address as IPv4
                    meta.destination(control, data, 16);
                }
            }
        }
    }

    /**
     * Reads one error-queue message: the TX timestamp(s) and the packet id of its sock_extended_err.
     *
     * @param out receives the result (reused)
     * @return true when the message is a timestamp report (ee_origin SO_EE_ORIGIN_TIMESTAMPING)
     */
    static boolean parseTxTimestamp(MemorySegment control, long controlLength, TxReport out) {
        out.clear();
        boolean timestamping = false;
        for (long at = first(control, controlLength); at != NONE; at = next(control, controlLength, at)) {
            int level = level(control, at);
            int type = type(control, at);
            long data = dataOffset(at);
            long dataLength = dataLength(control, at);
            if (level == SOL_SOCKET && (type == SCM_TIMESTAMPING || type == SO_TIMESTAMPING_NEW)
                    && dataLength >= Structs.SCM_TIMESTAMPING_BYTES) {
                out.softwareNs = Structs.timespecNs(control, data);
                out.hardwareNs = Structs.timespecNs(control, data + 2 * Structs.TIMESPEC.byteSize());
            } else if (((level == SOL_IP && type == IP_RECVERR) || (level == SOL_IPV6 && type == IPV6_RECVERR))
                    && dataLength >= Structs.SOCK_EXTENDED_ERR.byteSize()) {
                int origin = Byte.toUnsignedInt(control.get(JAVA_BYTE, data + Structs.EE_ORIGIN));
                if (origin == SocketConstants.SO_EE_ORIGIN_TIMESTAMPING) {
                    timestamping = true;
                    out.kind = control.get(JAVA_INT_UNALIGNED, data + Structs.EE_INFO);
                    out.packetId = Integer.toUnsignedLong(control.get(JAVA_INT_UNALIGNED, data + Structs.EE_DATA));
                }
            }
        }
        return timestamping;
    }

    /** The parsed content of one TX timestamp report (mutable, reused). */
    static final class TxReport {
        long packetId;
        /** SCM_TSTAMP_SND, SCM_TSTAMP_SCHED, ... (sock_extended_err.ee_info). */
        int kind;
        long softwareNs;
        long hardwareNs;

        void clear() {
            packetId = -1;
            kind = -1;
            softwareNs = 0;
            hardwareNs = 0;
        }
    }
}
