package io.github.twping.ffm;

/**
 * Linux socket constants shared by x86-64 and aarch64 (asm-generic values), checked against glibc 2.36 headers.
 */
final class SocketConstants {
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_CLOEXEC = 0x80000;

    static final int SOL_SOCKET = 1;
    static final int SOL_IP = 0;
    static final int SOL_IPV6 = 41;

    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_SNDBUFFORCE = 32;
    static final int SO_RCVBUFFORCE = 33;
    static final int SO_RCVTIMEO = 20;
    static final int SO_BINDTODEVICE = 25;
    static final int SO_BUSY_POLL = 46;
    static final int SO_REUSEPORT = 15;
    static final int SO_ATTACH_FILTER = 26;
    static final int SO_MEMINFO = 55;
    /** Index of SK_MEMINFO_DROPS in the u32 array SO_MEMINFO returns (linux/sock_diag.h). */
    static final int SK_MEMINFO_DROPS = 8;
    static final int SO_TIMESTAMPNS = 35;
    static final int SO_TIMESTAMPING = 37;
    static final int SO_TIMESTAMPNS_NEW = 64;
    static final int SO_TIMESTAMPING_NEW = 65;
    static final int SCM_TIMESTAMPNS = SO_TIMESTAMPNS;
    static final int SCM_TIMESTAMPING = SO_TIMESTAMPING;

    static final int IP_TOS = 1;
    static final int IP_TTL = 2;
    static final int IP_RECVERR = 11;
    static final int IP_RECVTTL = 12;
    static final int IP_RECVTOS = 13;
    /** IP_PKTINFO: as option, deliver struct in_pktinfo with each datagram; as cmsg type, that struct. */
    static final int IP_PKTINFO = 8;
    /** IPV6_RECVPKTINFO (option) and IPV6_PKTINFO (cmsg type: struct in6_pktinfo). */
    static final int IPV6_RECVPKTINFO = 49;
    static final int IPV6_PKTINFO = 50;

    static final int IPV6_UNICAST_HOPS = 16;
    static final int IPV6_RECVERR = 25;
    static final int IPV6_V6ONLY = 26;
    static final int IPV6_RECVHOPLIMIT = 51;
    static final int IPV6_HOPLIMIT = 52;
    static final int IPV6_RECVTCLASS = 66;
    static final int IPV6_TCLASS = 67;

    static final int MSG_CTRUNC = 0x8;
    static final int MSG_TRUNC = 0x20;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_ERRQUEUE = 0x2000;

    static final int MSG_WAITFORONE = 0x10000;

    static final int SHUT_RDWR = 2;

    static final int PR_SET_TIMERSLACK = 29;
    static final int PR_GET_TIMERSLACK = 30;

    static final int SOF_TIMESTAMPING_TX_HARDWARE = 1;
    static final int SOF_TIMESTAMPING_TX_SOFTWARE = 1 << 1;
    static final int SOF_TIMESTAMPING_RX_HARDWARE = 1 << 2;
    static final int SOF_TIMESTAMPING_RX_SOFTWARE = 1 << 3;
    static final int SOF_TIMESTAMPING_SOFTWARE = 1 << 4;
    static final int SOF_TIMESTAMPING_RAW_HARDWARE = 1 << 6;
    static final int SOF_TIMESTAMPING_OPT_ID = 1 << 7;
    static final int SOF_TIMESTAMPING_TX_SCHED = 1 << 8;
    static final int SOF_TIMESTAMPING_OPT_TSONLY = 1 << 11;

    /** sock_extended_err.ee_origin of a TX timestamp. */
    static final int SO_EE_ORIGIN_TIMESTAMPING = 4;
    /** sock_extended_err.ee_info: timestamp taken when the packet left the driver. */
    static final int SCM_TSTAMP_SND = 0;
    /** sock_extended_err.ee_info: timestamp taken when the packet entered the qdisc. */
    static final int SCM_TSTAMP_SCHED = 1;

    static final int CLOCK_REALTIME = 0;

    private SocketConstants() {
    }
}
