package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static io.github.twping.ffm.SocketConstants.*;
import static io.github.twping.ffm.Structs.MSG_CONTROL;
import static io.github.twping.ffm.Structs.MSG_CONTROLLEN;
import static io.github.twping.ffm.Structs.MSG_FLAGS;
import static io.github.twping.ffm.Structs.MSG_IOV;
import static io.github.twping.ffm.Structs.MSG_IOVLEN;
import static io.github.twping.ffm.Structs.MSG_NAME;
import static io.github.twping.ffm.Structs.MSG_NAMELEN;
import static io.github.twping.ffm.Structs.SOCKADDR_STORAGE_BYTES;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The FFM implementation of {@link UdpSocket}: a libc UDP socket with preallocated native structures.
 *
 * <p>Memory: one shared {@link Arena} per socket holds three independent sets of segments (send path,
 * receive path, error-queue path), each with its own errno call-state, so a sender and a receiver thread
 * never touch the same native memory. Lifecycle: every call enters a user count; {@link #close()} shuts the
 * socket down (waking a blocked recvmsg), and the descriptor and arena are released by whoever leaves last.
 */
final class NativeUdpSocket implements UdpSocket {
    static final int CONTROL_BYTES = 512;
    static final int STAGING_BYTES = 65536;
    private static final int ERR_DATA_BYTES = 64;
    private static final int MAX_TX_REPORTS_PER_POLL = 1024;
    private static final long CLOSE_WAIT_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long WARM_UP_NS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final int HARDWARE_FLAGS =
            SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;

    private final int fd;
    private final int family;
    private final Arena arena;

    private final AtomicInteger users = new AtomicInteger();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean closing;
    private volatile boolean closed;

    // set-up (opening thread only, before the socket is published)
    private final MemorySegment setupState;
    private final MemorySegment setupScratch;
    private final MemorySegment setupAddress;
    private final MemorySegment setupLength;

    // send path (the sending thread)
    private final MemorySegment sendState;
    private final MemorySegment sendAddress;
    private final MemorySegment sendStaging;
    private InetSocketAddress cachedDestination;
    private int cachedAddressLength;
    private long sentPacketCount;

    // receive path (the receiving thread)
    private final MemorySegment recvState;
    private final MemorySegment recvMsg;
    private final MemorySegment recvIov;
    private final MemorySegment recvName;
    private final MemorySegment recvControl;
    private final MemorySegment recvStaging;
    private final MemorySegment recvTimeval;
    private final MemorySegment recvClock;
    private long recvTimeoutNs = -1;

    // error-queue path (the thread draining TX timestamps)
    private final MemorySegment errState;
    private final MemorySegment errMsg;
    private final MemorySegment errControl;
    private final ControlMessages.TxReport txReport = new ControlMessages.TxReport();

    private InetSocketAddress localAddress;
    private Capabilities capabilities;
    private boolean kernelRxTimestamps;
    private boolean txTimestamps;

    private NativeUdpSocket(int fd, int family, Arena arena, MemorySegment setupState) {
        this.fd = fd;
        this.family = family;
        this.arena = arena;
        this.setupState = setupState;
        this.setupScratch = arena.allocate(64, 8);
        this.setupAddress = arena.allocate(SOCKADDR_STORAGE_BYTES, 8);
        this.setupLength = arena.allocate(JAVA_INT);

        this.sendState = Libc.allocateCallState(arena);
        this.sendAddress = arena.allocate(SOCKADDR_STORAGE_BYTES, 8);
        this.sendStaging = arena.allocate(STAGING_BYTES, 8);

        this.recvState = Libc.allocateCallState(arena);
        this.recvMsg = arena.allocate(Structs.MSGHDR);
        this.recvIov = arena.allocate(Structs.IOVEC);
        this.recvName = arena.allocate(SOCKADDR_STORAGE_BYTES, 8);
        this.recvControl = arena.allocate(CONTROL_BYTES, 8);
        this.recvStaging = arena.allocate(STAGING_BYTES, 8);
        this.recvTimeval = arena.allocate(Structs.TIMESPEC);
        this.recvClock = arena.allocate(Structs.TIMESPEC);
        recvMsg.set(ADDRESS, MSG_NAME, recvName);
        recvMsg.set(ADDRESS, MSG_IOV, recvIov);
        recvMsg.set(JAVA_LONG, MSG_IOVLEN, 1);
        recvMsg.set(ADDRESS, MSG_CONTROL, recvControl);

        this.errState = Libc.allocateCallState(arena);
        this.errMsg = arena.allocate(Structs.MSGHDR);
        MemorySegment errIov = arena.allocate(Structs.IOVEC);
        MemorySegment errData = arena.allocate(ERR_DATA_BYTES, 8);
        this.errControl = arena.allocate(CONTROL_BYTES, 8);
        errIov.set(ADDRESS, 0, errData);
        errIov.set(JAVA_LONG, 8, ERR_DATA_BYTES);
        errMsg.set(ADDRESS, MSG_NAME, MemorySegment.NULL);
        errMsg.set(JAVA_INT, MSG_NAMELEN, 0);
        errMsg.set(ADDRESS, MSG_IOV, errIov);
        errMsg.set(JAVA_LONG, MSG_IOVLEN, 1);
        errMsg.set(ADDRESS, MSG_CONTROL, errControl);
    }

    /** Creates, configures and binds a socket; on any failure nothing stays open. */
    static NativeUdpSocket open(UdpSocketOptions options) throws SocketException {
        return open(options, true);
    }

    private static NativeUdpSocket open(UdpSocketOptions options, boolean warmUp) throws SocketException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment state = Libc.allocateCallState(arena);
            int family = options.family() == StandardProtocolFamily.INET6 ? AF_INET6 : AF_INET;
            int fd = Libc.socket(state, family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw SocketException.of("socket", fd);
            }
            NativeUdpSocket socket;
            try {
                socket = new NativeUdpSocket(fd, family, arena, state);
                socket.configure(options);
                if (warmUp && socket.kernelRxTimestamps) {
                    warmUpRxTimestamps();
                }
            } catch (SocketException | RuntimeException | Error e) {
                Libc.close(fd);
                throw e;
            }
            return socket;
        } catch (SocketException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Waits (bounded) until the kernel really stamps received packets. The first socket asking for RX
     * timestamps enables them system-wide through deferred work (net_enable_timestamp), so packets arriving in
     * the first milliseconds would carry no stamp; a throw-away loopback socket probes until a stamp appears.
     * Our socket keeps the stamping enabled from then on.
     */
    private static void warmUpRxTimestamps() {
        UdpSocketOptions probeOptions = UdpSocketOptions.builder().bindAddress(InetAddress.getLoopbackAddress())
                .timestamping(Timestamping.RX_SOFTWARE).build();
        try (NativeUdpSocket probe = open(probeOptions, false)) {
            MemorySegment buffer = probe.sendStaging.asSlice(0, 16);
            ReceivedPacket meta = new ReceivedPacket();
            long deadlineNs = System.nanoTime() + WARM_UP_NS;
            while (System.nanoTime() - deadlineNs < 0) {
                probe.send(buffer, 1, probe.localAddress);
                if (probe.receive(probe.recvStaging.asSlice(0, 16), meta, WARM_UP_NS) >= 0
                        && meta.timestampSource() != TimestampSource.USER) {
                    return;
                }
                LockSupport.parkNanos(500_000);
            }
        } catch (SocketException e) {
            // loopback unusable: the socket still works; early packets may carry user-space stamps
        }
    }

    private void configure(UdpSocketOptions o) throws SocketException {
        boolean v6 = family == AF_INET6;
        if (o.receiveBufferBytes() != UdpSocketOptions.DEFAULT) {
            setIntOrThrow("setsockopt(SO_RCVBUF)", SOL_SOCKET, SO_RCVBUF, o.receiveBufferBytes());
        }
        if (o.sendBufferBytes() != UdpSocketOptions.DEFAULT) {
            setIntOrThrow("setsockopt(SO_SNDBUF)", SOL_SOCKET, SO_SNDBUF, o.sendBufferBytes());
        }
        if (o.bindToDevice() != null) {
            byte[] name = o.bindToDevice().getBytes(StandardCharsets.US_ASCII);
            setupScratch.fill((byte) 0);
            MemorySegment.copy(name, 0, setupScratch, JAVA_BYTE, 0, name.length);
            int rc = Libc.setsockopt(setupState, fd, SOL_SOCKET, SO_BINDTODEVICE, setupScratch, name.length + 1);
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
        boolean hardware = configureTimestamping(o.timestamping(), o.txScheduledTimestamps());
        bind(o);
        this.localAddress = readLocalAddress();
        this.capabilities = new Capabilities(ttlSet, tosSet, o.receiveTtl(), o.receiveTos(),
                kernelRxTimestamps, txTimestamps, hardware);
    }

    /** Asks for the strongest accepted timestamping; @return whether the hardware flags were accepted. */
    private boolean configureTimestamping(Timestamping timestamping, boolean txScheduled) {
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
        int rc = setInt(SOL_SOCKET, SO_TIMESTAMPING, hardware ? flags | HARDWARE_FLAGS : flags);
        if (rc < 0 && hardware) {
            hardware = false;
            rc = setInt(SOL_SOCKET, SO_TIMESTAMPING, flags);
        }
        if (rc == 0) {
            kernelRxTimestamps = true;
            txTimestamps = (flags & SOF_TIMESTAMPING_TX_SOFTWARE) != 0;
            return hardware;
        }
        kernelRxTimestamps = setInt(SOL_SOCKET, SO_TIMESTAMPNS, 1) == 0;
        return false;
    }

    private void bind(UdpSocketOptions o) throws SocketException {
        InetAddress address = o.bindAddress();
        if (address == null) {
            address = wildcard(family);
        }
        int low = o.portLow();
        int high = o.portHigh();
        int port = o.portFirstTry() != 0 ? o.portFirstTry() : low;
        int attempts = high - low + 1;
        for (int i = 0; i < attempts; i++) {
            int length = SockAddrs.encode(address, port, family, setupAddress);
            if (length < 0) {
                throw SocketException.of("bind " + address.getHostAddress(), length);
            }
            int rc = Libc.bind(setupState, fd, setupAddress, length);
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

    static InetAddress wildcard(int family) {
        try {
            return family == AF_INET ? InetAddress.getByAddress(new byte[4]) : InetAddress.getByAddress(new byte[16]);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private InetSocketAddress readLocalAddress() throws SocketException {
        setupLength.set(JAVA_INT, 0, SOCKADDR_STORAGE_BYTES);
        int rc = Libc.getsockname(setupState, fd, setupAddress, setupLength);
        if (rc < 0) {
            throw SocketException.of("getsockname", rc);
        }
        return SockAddrs.decode(setupAddress, setupLength.get(JAVA_INT, 0));
    }

    private int setInt(int level, int name, int value) {
        setupScratch.set(JAVA_INT, 0, value);
        return Libc.setsockopt(setupState, fd, level, name, setupScratch, 4);
    }

    private void setIntOrThrow(String call, int level, int name, int value) throws SocketException {
        int rc = setInt(level, name, value);
        if (rc < 0) {
            throw SocketException.of(call, rc);
        }
    }

    /** Reads an int socket option (tests, diagnostics); @return the value, or -errno. */
    int getIntOption(int level, int name) {
        if (!enter()) {
            return -Errno.EBADF;
        }
        try {
            synchronized (setupScratch) {
                setupLength.set(JAVA_INT, 0, 4);
                int rc = Libc.getsockopt(setupState, fd, level, name, setupScratch, setupLength);
                return rc < 0 ? rc : setupScratch.get(JAVA_INT, 0);
            }
        } finally {
            exit();
        }
    }

    // ---------------------------------------------------------------- UdpSocket

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public boolean isNative() {
        return true;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public int send(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        Objects.checkFromIndexSize(0, length, data.byteSize());
        if (!enter()) {
            throw new SocketException("sendto", Errno.EBADF, "socket closed", null);
        }
        try {
            if (destination != cachedDestination) {
                cacheDestination(destination);
            }
            MemorySegment source = data;
            if (!data.isNative()) {
                if (length > STAGING_BYTES) {
                    throw new SocketException("sendto", Errno.EMSGSIZE);
                }
                MemorySegment.copy(data, 0, sendStaging, 0, length);
                source = sendStaging;
            }
            long n;
            do {
                n = Libc.sendto(sendState, fd, source, length, 0, sendAddress, cachedAddressLength);
            } while (n == -Errno.EINTR);
            if (n >= 0) {
                sentPacketCount++;
                return (int) n;
            }
            if (n == -Errno.EAGAIN || n == -Errno.ENOBUFS) {
                return 0;
            }
            throw SocketException.of("sendto", (int) n);
        } finally {
            exit();
        }
    }

    private void cacheDestination(InetSocketAddress destination) throws SocketException {
        cachedDestination = null;
        InetAddress address = destination.getAddress();
        if (address == null) {
            throw new SocketException("sendto", Errno.EDESTADDRREQ, "unresolved destination " + destination, null);
        }
        int length = SockAddrs.encode(address, destination.getPort(), family, sendAddress);
        if (length < 0) {
            throw SocketException.of("sendto " + address.getHostAddress(), length);
        }
        cachedAddressLength = length;
        cachedDestination = destination;
    }

    @Override
    public int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs) throws SocketException {
        if (!enter()) {
            return CLOSED;
        }
        try {
            if (closing) {
                return CLOSED;
            }
            boolean direct = buffer.isNative();
            recvIov.set(ADDRESS, 0, direct ? buffer : recvStaging);
            recvIov.set(JAVA_LONG, 8, direct ? buffer.byteSize() : Math.min(buffer.byteSize(), STAGING_BYTES));
            boolean sameTimeout = timeoutNs == recvTimeoutNs || (timeoutNs < 0 && recvTimeoutNs < 0);
            long n;
            if (timeoutNs == 0 || !sameTimeout) {
                // non-blocking, or a new timeout: take a ready datagram without touching SO_RCVTIMEO
                n = recvmsg(MSG_DONTWAIT);
                if (n == -Errno.EAGAIN && timeoutNs != 0 && !closing) {
                    setReceiveTimeout(timeoutNs);
                    n = recvmsg(0);
                }
            } else {
                n = recvmsg(0);
            }
            if (n < 0) {
                if (closing) {
                    return CLOSED;
                }
                if (n == -Errno.EAGAIN) {
                    return TIMEOUT;
                }
                throw SocketException.of("recvmsg", (int) n);
            }
            if (n == 0 && closing) {
                return CLOSED;
            }
            meta.reset();
            if (!kernelRxTimestamps) {
                meta.rxTimestamp(Libc.realtimeEpochNs(recvClock), TimestampSource.USER);
            }
            if (!direct) {
                MemorySegment.copy(recvStaging, 0, buffer, 0, n);
            }
            meta.length((int) n, (recvMsg.get(JAVA_INT, MSG_FLAGS) & MSG_TRUNC) != 0);
            SockAddrs.decodeSource(recvName, recvMsg.get(JAVA_INT, MSG_NAMELEN), meta);
            ControlMessages.parseReceive(recvControl, recvMsg.get(JAVA_LONG, MSG_CONTROLLEN), meta);
            if (kernelRxTimestamps && meta.rxTimestampEpochNs() == 0) {
                meta.rxTimestamp(Libc.realtimeEpochNs(recvClock), TimestampSource.USER);
            }
            return (int) n;
        } finally {
            exit();
        }
    }

    /** recvmsg on the receive-path segments, EINTR retried; @return bytes or -errno. */
    private long recvmsg(int flags) {
        long n;
        do {
            recvMsg.set(JAVA_INT, MSG_NAMELEN, SOCKADDR_STORAGE_BYTES);
            recvMsg.set(JAVA_LONG, MSG_CONTROLLEN, CONTROL_BYTES);
            recvMsg.set(JAVA_INT, MSG_FLAGS, 0);
            n = Libc.recvmsg(recvState, fd, recvMsg, flags);
        } while (n == -Errno.EINTR && !closing);
        return n;
    }

    private void setReceiveTimeout(long timeoutNs) throws SocketException {
        long seconds = 0;
        long micros = 0;
        if (timeoutNs > 0) {
            seconds = timeoutNs / 1_000_000_000L;
            micros = (timeoutNs % 1_000_000_000L + 999) / 1000;
            if (seconds == 0 && micros == 0) {
                micros = 1;
            }
        }
        recvTimeval.set(JAVA_LONG, 0, seconds);
        recvTimeval.set(JAVA_LONG, 8, micros);
        int rc = Libc.setsockopt(recvState, fd, SOL_SOCKET, SO_RCVTIMEO, recvTimeval, 16);
        if (rc < 0) {
            throw SocketException.of("setsockopt(SO_RCVTIMEO)", rc);
        }
        recvTimeoutNs = timeoutNs;
    }

    @Override
    public int pollTxTimestamps(TxTimestampHandler handler) throws SocketException {
        if (!txTimestamps || !enter()) {
            return 0;
        }
        try {
            int delivered = 0;
            for (int i = 0; i < MAX_TX_REPORTS_PER_POLL; i++) {
                errMsg.set(JAVA_LONG, MSG_CONTROLLEN, CONTROL_BYTES);
                errMsg.set(JAVA_INT, MSG_FLAGS, 0);
                long n = Libc.recvmsg(errState, fd, errMsg, MSG_ERRQUEUE | MSG_DONTWAIT);
                if (n < 0) {
                    if (n == -Errno.EINTR) {
                        continue;
                    }
                    if (n == -Errno.EAGAIN || closing) {
                        break;
                    }
                    throw SocketException.of("recvmsg(MSG_ERRQUEUE)", (int) n);
                }
                if (!ControlMessages.parseTxTimestamp(errControl, errMsg.get(JAVA_LONG, MSG_CONTROLLEN), txReport)) {
                    continue;
                }
                if (txReport.kind == SCM_TSTAMP_SND) {
                    if (txReport.softwareNs != 0) {
                        handler.onTxTimestamp(txReport.packetId, txReport.softwareNs, false);
                        delivered++;
                    }
                    if (txReport.hardwareNs != 0) {
                        handler.onTxTimestamp(txReport.packetId, txReport.hardwareNs, true);
                        delivered++;
                    }
                } else if (txReport.kind == SCM_TSTAMP_SCHED && txReport.softwareNs != 0) {
                    handler.onTxScheduled(txReport.packetId, txReport.softwareNs);
                    delivered++;
                }
            }
            return delivered;
        } finally {
            exit();
        }
    }

    @Override
    public long sentPacketCount() {
        return sentPacketCount;
    }

    @Override
    public void wakeup() {
        closing = true;
        if (enter()) {
            try {
                Libc.shutdown(fd, SHUT_RDWR);
            } finally {
                exit();
            }
        }
    }

    @Override
    public void close() {
        if (!closeRequested.compareAndSet(false, true)) {
            return;
        }
        wakeup();
        closed = true;
        if (users.get() == 0) {
            release();
        }
        long deadlineNs = System.nanoTime() + CLOSE_WAIT_NS;
        while (!released.get() && System.nanoTime() - deadlineNs < 0) {
            LockSupport.parkNanos(100_000);
        }
    }

    /** True once the descriptor is closed and the native memory freed. */
    boolean isReleased() {
        return released.get();
    }

    private boolean enter() {
        users.incrementAndGet();
        if (closed) {
            exit();
            return false;
        }
        return true;
    }

    private void exit() {
        if (users.decrementAndGet() == 0 && closed) {
            release();
        }
    }

    private void release() {
        if (released.compareAndSet(false, true)) {
            Libc.close(fd);
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "NativeUdpSocket[fd=" + fd + ", local=" + localAddress + ", " + capabilities + "]";
    }
}
