package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static io.github.twping.ffm.SocketConstants.*;
import static io.github.twping.ffm.Structs.SOCKADDR_STORAGE_BYTES;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import java.lang.foreign.ValueLayout;

/**
 * Configures and binds a fresh native socket from {@link UdpSocketOptions}: socket options, timestamping
 * (degrading when refused), the port-range bind and getsockname. Used by the opening thread only.
 */
final class NativeSocketSetup {
    private static final int HARDWARE_FLAGS =
            SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;

    /** The outcome of {@link #configure}. */
    record Configured(InetSocketAddress localAddress, Capabilities capabilities) {
    }

    private final int fd;
    private final int family;
    private final MemorySegment callState;
    private final MemorySegment scratch;
    private final MemorySegment address;
    private final MemorySegment length;
    private boolean kernelRxTimestamps;
    private boolean txTimestamps;
    /** The TX recording flags a stamped send asks for in its control message; 0 when the socket stamps every send. */
    private int perSendTxFlags;

    NativeSocketSetup(int fd, int family, Arena arena, MemorySegment callState) {
        this.fd = fd;
        this.family = family;
        this.callState = callState;
        this.scratch = arena.allocate(64, 8);
        this.address = arena.allocate(SOCKADDR_STORAGE_BYTES, 8);
        this.length = arena.allocate(JAVA_INT);
    }

    /** Applies the options, binds, and reports what the kernel accepted. */
    Configured configure(UdpSocketOptions o) throws SocketException {
        boolean v6 = family == AF_INET6;
        // The *FORCE variants exceed net.core.rmem_max/wmem_max when the process has CAP_NET_ADMIN (a probe
        // run as root, a container given the capability); without it they fail with EPERM and the plain
        // option applies, capped by the kernel at the sysctl.
        if (o.receiveBufferBytes() != UdpSocketOptions.DEFAULT
                && setInt(SOL_SOCKET, SO_RCVBUFFORCE, o.receiveBufferBytes()) < 0) {
            setIntOrThrow("setsockopt(SO_RCVBUF)", SOL_SOCKET, SO_RCVBUF, o.receiveBufferBytes());
        }
        if (o.sendBufferBytes() != UdpSocketOptions.DEFAULT
                && setInt(SOL_SOCKET, SO_SNDBUFFORCE, o.sendBufferBytes()) < 0) {
            setIntOrThrow("setsockopt(SO_SNDBUF)", SOL_SOCKET, SO_SNDBUF, o.sendBufferBytes());
        }
        if (o.reusePort()) {
            setIntOrThrow("setsockopt(SO_REUSEPORT)", SOL_SOCKET, SO_REUSEPORT, 1);
        }
        if (o.dropReceived()) {
            attachDropAllFilter();
        }
        if (o.busyPollMicros() != UdpSocketOptions.DEFAULT) {
            setIntOrThrow("setsockopt(SO_BUSY_POLL)", SOL_SOCKET, SO_BUSY_POLL, o.busyPollMicros());
        }
        if (o.bindToDevice() != null) {
            byte[] name = o.bindToDevice().getBytes(StandardCharsets.US_ASCII);
            scratch.fill((byte) 0);
            MemorySegment.copy(name, 0, scratch, JAVA_BYTE, 0, name.length);
            int rc = Libc.setsockopt(callState, fd, SOL_SOCKET, SO_BINDTODEVICE, scratch, name.length + 1);
            if (rc < 0) {
                throw SocketException.of("setsockopt(SO_BINDTODEVICE " + o.bindToDevice() + ")", rc);
            }
        }
        boolean ttlSet = false;
        if (o.unicastTtl() != UdpSocketOptions.DEFAULT) {
            if (v6) {
                setIntOrThrow("setsockopt(IPV6_UNICAST_HOPS)", SOL_IPV6, IPV6_UNICAST_HOPS, o.unicastTtl());
                setInt(SOL_IP, IP_TTL, o.unicastTtl()); // IPv4-mapped traffic; best effort
            } else {
                setIntOrThrow("setsockopt(IP_TTL)", SOL_IP, IP_TTL, o.unicastTtl());
            }
            ttlSet = true;
        }
        boolean tosSet = false;
        if (o.tos() != UdpSocketOptions.DEFAULT) {
            if (v6) {
                setIntOrThrow("setsockopt(IPV6_TCLASS)", SOL_IPV6, IPV6_TCLASS, o.tos());
                setInt(SOL_IP, IP_TOS, o.tos());
            } else {
                setIntOrThrow("setsockopt(IP_TOS)", SOL_IP, IP_TOS, o.tos());
            }
            tosSet = true;
        }
        if (o.receiveTtl()) {
            if (v6) {
                setIntOrThrow("setsockopt(IPV6_RECVHOPLIMIT)", SOL_IPV6, IPV6_RECVHOPLIMIT, 1);
                setInt(SOL_IP, IP_RECVTTL, 1);
            } else {
                setIntOrThrow("setsockopt(IP_RECVTTL)", SOL_IP, IP_RECVTTL, 1);
            }
        }
        if (o.receiveTos()) {
            if (v6) {
                setIntOrThrow("setsockopt(IPV6_RECVTCLASS)", SOL_IPV6, IPV6_RECVTCLASS, 1);
                setInt(SOL_IP, IP_RECVTOS, 1);
            } else {
                setIntOrThrow("setsockopt(IP_RECVTOS)", SOL_IP, IP_RECVTOS, 1);
            }
        }
        if (o.receiveDestination()) {
            if (v6) {
                setIntOrThrow("setsockopt(IPV6_RECVPKTINFO)", SOL_IPV6, IPV6_RECVPKTINFO, 1);
                setInt(SOL_IP, IP_PKTINFO, 1);
            } else {
                setIntOrThrow("setsockopt(IP_PKTINFO)", SOL_IP, IP_PKTINFO, 1);
            }
        }
        boolean hardware = configureTimestamping(o.timestamping(), o.txScheduledTimestamps(), o.txTimestampsPerSend());
        bind(o);
        return new Configured(readLocalAddress(), new Capabilities(ttlSet, tosSet, o.receiveTtl(), o.receiveTos(),
                kernelRxTimestamps, txTimestamps, hardware));
    }

    /**
     * Asks for the strongest accepted timestamping; @return whether the hardware flags were accepted. With
     * {@code perSend}, the TX recording flags are left out of the socket option and kept for the control message of
     * each stamped send ({@link #perSendTxFlags}); the reporting flags (SOFTWARE, RAW_HARDWARE, OPT_ID, OPT_TSONLY)
     * stay on the socket, where the kernel reads them for a stamp asked for by a control message too.
     */
    private boolean configureTimestamping(Timestamping timestamping, boolean txScheduled, boolean perSend) {
        int flags = switch (timestamping) {
            case NONE -> 0;
            case RX_SOFTWARE -> SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
            case RX_TX_SOFTWARE, HARDWARE -> SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE
                    | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;
        };
        if (flags == 0) {
            return false;
        }
        if (txScheduled && (flags & SOF_TIMESTAMPING_TX_SOFTWARE) != 0) {
            flags |= SOF_TIMESTAMPING_TX_SCHED;
        }
        boolean hardware = timestamping == Timestamping.HARDWARE;
        boolean tx = (flags & SOF_TIMESTAMPING_TX_SOFTWARE) != 0;
        int rc = setInt(SOL_SOCKET, SO_TIMESTAMPING, socketFlags(hardware ? flags | HARDWARE_FLAGS : flags, perSend));
        if (rc < 0 && hardware) {
            hardware = false;
            rc = setInt(SOL_SOCKET, SO_TIMESTAMPING, socketFlags(flags, perSend));
        }
        if (rc == 0) {
            kernelRxTimestamps = true;
            txTimestamps = tx;
            if (tx && perSend) {
                perSendTxFlags = (hardware ? flags | HARDWARE_FLAGS : flags) & TX_RECORD_FLAGS;
            }
            return hardware;
        }
        kernelRxTimestamps = setInt(SOL_SOCKET, SO_TIMESTAMPNS, 1) == 0;
        return false;
    }

    /** The TX recording flags, the only ones a control message may carry (SOF_TIMESTAMPING_TX_RECORD_MASK). */
    private static final int TX_RECORD_FLAGS =
            SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_TX_SCHED;

    /** The socket option's flags: {@code flags} less the TX recording ones when each send asks for its own. */
    private static int socketFlags(int flags, boolean perSend) {
        return perSend ? flags & ~TX_RECORD_FLAGS : flags;
    }

    /** The TX recording flags of a stamped send's control message; 0 when the socket stamps every send. */
    int perSendTxFlags() {
        return perSendTxFlags;
    }

    private void bind(UdpSocketOptions o) throws SocketException {
        InetAddress local = o.bindAddress() != null ? o.bindAddress() : SockAddrs.wildcard(family);
        int low = o.portLow();
        int high = o.portHigh();
        int port = o.portFirstTry() != 0 ? o.portFirstTry() : low;
        int attempts = high - low + 1;
        for (int i = 0; i < attempts; i++) {
            int sockaddrLength = SockAddrs.encode(local, port, family, address);
            if (sockaddrLength < 0) {
                throw SocketException.of("bind " + local.getHostAddress(), sockaddrLength);
            }
            int rc = Libc.bind(callState, fd, address, sockaddrLength);
            if (rc == 0) {
                return;
            }
            if (rc != -Errno.EADDRINUSE) {
                throw SocketException.of("bind", rc);
            }
            if (attempts == 1) {
                throw new AddressInUseException("bind");
            }
            port = port == high ? low : port + 1;
        }
        throw new AddressInUseException("bind", "Address already in use (every port of " + low + ".." + high + ")", null);
    }

    private InetSocketAddress readLocalAddress() throws SocketException {
        length.set(JAVA_INT, 0, SOCKADDR_STORAGE_BYTES);
        int rc = Libc.getsockname(callState, fd, address, length);
        if (rc < 0) {
            throw SocketException.of("getsockname", rc);
        }
        return SockAddrs.decode(address, length.get(JAVA_INT, 0));
    }

    /** A one-instruction classic BPF program, {@code ret #0}: every datagram is dropped at the socket. */
    private void attachDropAllFilter() throws SocketException {
        // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; } at scratch+32; struct sock_fprog { u16 len; ptr } at 0
        MemorySegment filter = scratch.asSlice(32, 8);
        filter.set(JAVA_SHORT, 0, (short) 0x06);  // BPF_RET | BPF_K
        filter.set(JAVA_BYTE, 2, (byte) 0);
        filter.set(JAVA_BYTE, 3, (byte) 0);
        filter.set(JAVA_INT, 4, 0);               // return 0 bytes: drop
        scratch.set(JAVA_SHORT, 0, (short) 1);
        scratch.set(ValueLayout.ADDRESS, 8, filter);
        int rc = Libc.setsockopt(callState, fd, SOL_SOCKET, SO_ATTACH_FILTER, scratch.asSlice(0, 16), 16);
        if (rc < 0) {
            throw SocketException.of("setsockopt(SO_ATTACH_FILTER)", rc);
        }
    }

    private int setInt(int level, int name, int value) {
        scratch.set(JAVA_INT, 0, value);
        return Libc.setsockopt(callState, fd, level, name, scratch, 4);
    }

    private void setIntOrThrow(String call, int level, int name, int value) throws SocketException {
        int rc = setInt(level, name, value);
        if (rc < 0) {
            throw SocketException.of(call, rc);
        }
    }

    /** SK_MEMINFO_DROPS from SO_MEMINFO; @return the count, or -1 when the kernel does not report it. */
    synchronized long memInfoDrops() {
        int wanted = (SK_MEMINFO_DROPS + 1) * 4;
        length.set(JAVA_INT, 0, (int) scratch.byteSize());
        int rc = Libc.getsockopt(callState, fd, SOL_SOCKET, SO_MEMINFO, scratch, length);
        if (rc < 0 || length.get(JAVA_INT, 0) < wanted) {
            return -1;
        }
        return Integer.toUnsignedLong(scratch.get(JAVA_INT, SK_MEMINFO_DROPS * 4L));
    }

    /** Reads an int socket option (tests, diagnostics); @return the value, or -errno. */
    synchronized int getIntOption(int level, int name) {
        length.set(JAVA_INT, 0, 4);
        int rc = Libc.getsockopt(callState, fd, level, name, scratch, length);
        return rc < 0 ? rc : scratch.get(JAVA_INT, 0);
    }
}
