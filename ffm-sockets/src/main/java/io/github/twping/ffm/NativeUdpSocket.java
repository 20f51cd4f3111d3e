package io.github.twping.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
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
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import java.util.Arrays;

/**
 * The FFM implementation of {@link UdpSocket}: a libc UDP socket with preallocated native structures.
 *
 * <p>Memory: one shared {@link Arena} per socket holds three independent sets of segments (send path,
 * receive path, error-queue path), each with its own errno call-state, so a sender and a receiver thread
 * never touch the same native memory. The staging buffers, which only a heap segment passed to {@link #send} or
 * {@link #receive} needs, are allocated on first such use and sized to it (a power of two from
 * {@value #MIN_STAGING_BYTES} to {@value #STAGING_BYTES} bytes), so a socket that is never used for heap data, or
 * a slow session's socket with small packets, does not hold two zeroed 64 KB buffers. Lifecycle: every call enters a user count; {@link #close()} shuts the
 * socket down (waking a blocked recvmsg), and the descriptor and arena are released by whoever leaves last.
 */
final class NativeUdpSocket implements UdpSocket {
    static final int CONTROL_BYTES = 512;
    static final int STAGING_BYTES = 65536;
    static final int MIN_STAGING_BYTES = 2048;
    private static final int ERR_DATA_BYTES = 64;
    private static final int MAX_TX_REPORTS_PER_POLL = 1024;
    private static final long CLOSE_WAIT_NS = TimeUnit.SECONDS.toNanos(2);
    private static final long WARM_UP_NS = TimeUnit.MILLISECONDS.toNanos(200);

    private final int fd;
    private final int family;
    private final Arena arena;

    private final SocketLifecycle lifecycle;
    private final NativeSocketSetup setup;

    // send path (the sending thread)
    private final MemorySegment sendState;
    private final MemorySegment sendAddress;
    private MemorySegment sendStaging = MemorySegment.NULL; // allocated by the first send of heap data
    private final MemorySegment sendOption;
    private InetSocketAddress cachedDestination;
    private int cachedAddressLength;
    private long sentPacketCount;
    // stamped sends on a socket whose TX stamps are asked for per send (UdpSocketOptions#txTimestampsPerSend)
    private final MemorySegment sendMsg;
    private final MemorySegment sendIov;
    private final MemorySegment sendControl;
    /** The OPT_ID of the next TX-stamped send: every send counts, or with per-send stamps only sendStamped's. */
    private long txStampId;
    private boolean perSendTx;

    // receive path (the receiving thread)
    private final MemorySegment recvState;
    private final MemorySegment recvMsg;
    private final MemorySegment recvIov;
    private final MemorySegment recvName;
    private final MemorySegment recvControl;
    private MemorySegment recvStaging = MemorySegment.NULL; // allocated by the first receive into heap memory
    private final MemorySegment recvTimeval;
    private final MemorySegment recvClock;
    private long recvTimeoutNs = -1;

    // error-queue path (the thread draining TX timestamps)
    private final MemorySegment errState;
    private final MemorySegment errMsg;
    private final MemorySegment errControl;
    private final ControlMessages.TxReport txReport = new ControlMessages.TxReport();
    // batched error-queue reads (pollTxTimestampsBatched): mmsghdr[TX_TIMESTAMP_BATCH] and their control buffers,
    // allocated at open when TX timestamps are on. Not by the first call: the socket of a real session is not the one
    // the start-up warm-up compiled the method with, and its first call then hit a branch C2 had left out (an
    // unstable_if trap that deoptimised the reflector's TX-stamp drain during the first session, -Xlog:deoptimization)
    private MemorySegment errBatchHeaders;
    private MemorySegment[] errBatchControls;

    private InetSocketAddress localAddress;
    /** Set by {@link #connect}: the kernel then delivers only the peer's datagrams, and reports its ICMP errors. */
    private volatile boolean connected;
    private Capabilities capabilities;
    private boolean kernelRxTimestamps;
    private boolean txTimestamps;

    private NativeUdpSocket(int fd, int family, Arena arena, MemorySegment setupState) {
        this.fd = fd;
        this.family = family;
        this.arena = arena;
        // The only place this socket's memory is freed. On the syscall path (Libc) the kernel gets raw addresses, which
        // do not keep the arena open as FFM ADDRESS arguments did; what does is that every call on this memory runs
        // between lifecycle.enter() and exit() (or in open(), before the socket is published), and this release runs
        // once, after close(), by the last thread to leave (SocketLifecycle: enter() and close() each see the other).
        this.lifecycle = new SocketLifecycle(() -> {
            Libc.close(fd);
            arena.close();
        });
        this.setup = new NativeSocketSetup(fd, family, arena, setupState);

        this.sendState = Libc.allocateCallState(arena);
        this.sendAddress = arena.allocate(SOCKADDR_STORAGE_BYTES, 8);
        this.sendOption = arena.allocate(JAVA_INT);
        this.sendMsg = arena.allocate(Structs.MSGHDR);
        this.sendIov = arena.allocate(Structs.IOVEC);
        this.sendControl = arena.allocate(ControlMessages.space(4), 8);
        sendMsg.set(ADDRESS, MSG_NAME, sendAddress);
        sendMsg.set(ADDRESS, MSG_IOV, sendIov);
        sendMsg.set(JAVA_LONG, MSG_IOVLEN, 1);
        sendMsg.set(ADDRESS, MSG_CONTROL, sendControl);
        sendMsg.set(JAVA_LONG, MSG_CONTROLLEN, ControlMessages.space(4));

        this.recvState = Libc.allocateCallState(arena);
        this.recvMsg = arena.allocate(Structs.MSGHDR);
        this.recvIov = arena.allocate(Structs.IOVEC);
        this.recvName = arena.allocate(SOCKADDR_STORAGE_BYTES, 8);
        this.recvControl = arena.allocate(CONTROL_BYTES, 8);
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
                NativeSocketSetup.Configured configured = socket.setup.configure(options);
                socket.localAddress = configured.localAddress();
                socket.capabilities = configured.capabilities();
                socket.kernelRxTimestamps = configured.capabilities().kernelRxTimestamps();
                socket.txTimestamps = configured.capabilities().txTimestamps();
                socket.perSendTx(socket.setup.perSendTxFlags());
                if (socket.txTimestamps) {
                    socket.allocateErrorBatch();
                }
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
            MemorySegment buffer = probe.arena.allocate(16, 8);
            ReceivedPacket meta = new ReceivedPacket();
            long deadlineNs = System.nanoTime() + WARM_UP_NS;
            while (System.nanoTime() - deadlineNs < 0) {
                probe.send(buffer, 1, probe.localAddress);
                if (probe.receive(buffer, meta, WARM_UP_NS) >= 0
                        && meta.timestampSource() != TimestampSource.USER) {
                    return;
                }
                LockSupport.parkNanos(500_000);
            }
        } catch (SocketException e) {
            // loopback unusable: the socket still works; early packets may carry user-space stamps
        }
    }

    /** Reads an int socket option (tests, diagnostics); @return the value, or -errno. */
    int getIntOption(int level, int name) {
        if (!lifecycle.enter()) {
            return -Errno.EBADF;
        }
        try {
            return setup.getIntOption(level, name);
        } finally {
            lifecycle.exit();
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
        if (!lifecycle.enter()) {
            throw new SocketException("sendto", Errno.EBADF, "socket closed", null);
        }
        try {
            MemorySegment source = sendSource(data, length, destination);
            long n;
            do {
                n = Libc.sendto(sendState, fd, source, length, 0, sendAddress, cachedAddressLength);
            } while (n == -Errno.EINTR);
            if (n >= 0) {
                sentPacketCount++;
                if (!perSendTx) {
                    txStampId++;
                }
                return (int) n;
            }
            if (n == -Errno.EAGAIN || n == -Errno.ENOBUFS) {
                return 0;
            }
            throw SocketException.of("sendto", (int) n);
        } finally {
            lifecycle.exit();
        }
    }

    /**
     * The control message of a stamped send, written once: SOL_SOCKET / SO_TIMESTAMPING with the TX recording flags
     * ({@code flags}, 0 when every send is stamped by the socket option).
     */
    private void perSendTx(int flags) {
        perSendTx = flags != 0;
        if (perSendTx) {
            sendControl.set(JAVA_LONG, Structs.CMSG_LEN, ControlMessages.length(4));
            sendControl.set(JAVA_INT, Structs.CMSG_LEVEL, SOL_SOCKET);
            sendControl.set(JAVA_INT, Structs.CMSG_TYPE, SO_TIMESTAMPING);
            sendControl.set(JAVA_INT, ControlMessages.HEADER_BYTES, flags);
        }
    }

    /**
     * With per-send TX stamps: sendmsg with the SO_TIMESTAMPING control message, so that the kernel stamps this
     * datagram and gives it the next OPT_ID ({@link #txStampId}). Otherwise {@link #send}: the socket option stamps
     * every send, or none.
     */
    @Override
    public int sendStamped(MemorySegment data, int length, InetSocketAddress destination) throws SocketException {
        if (!perSendTx) {
            return send(data, length, destination);
        }
        Objects.checkFromIndexSize(0, length, data.byteSize());
        if (!lifecycle.enter()) {
            throw new SocketException("sendmsg", Errno.EBADF, "socket closed", null);
        }
        try {
            MemorySegment source = sendSource(data, length, destination);
            sendIov.set(ADDRESS, 0, source);
            sendIov.set(JAVA_LONG, 8, length);
            sendMsg.set(JAVA_INT, MSG_NAMELEN, cachedAddressLength);
            sendMsg.set(JAVA_INT, MSG_FLAGS, 0);
            long n;
            do {
                n = Libc.sendmsg(sendState, fd, sendMsg, 0);
            } while (n == -Errno.EINTR);
            if (n >= 0) {
                sentPacketCount++;
                txStampId++;
                return (int) n;
            }
            if (n == -Errno.EAGAIN || n == -Errno.ENOBUFS) {
                return 0;
            }
            throw SocketException.of("sendmsg(SO_TIMESTAMPING)", (int) n);
        } finally {
            lifecycle.exit();
        }
    }

    /**
     * What a send passes to the kernel: {@code data} itself when native, else its copy in the staging memory; and
     * the destination's sockaddr, cached while the destination stays the same object. Inside {@code lifecycle}.
     */
    private MemorySegment sendSource(MemorySegment data, int length, InetSocketAddress destination)
            throws SocketException {
        if (destination != cachedDestination) {
            cacheDestination(destination, data.isNative() ? 0 : length);
        }
        if (data.isNative()) {
            return data;
        }
        MemorySegment source = sendStaging;
        if (length > source.byteSize()) {
            source = sendStaging(length);
        }
        MemorySegment.copy(data, 0, source, 0, length);
        return source;
    }

    @Override
    public long txStampId() {
        return txStampId;
    }

    @Override
    public boolean txTimestampsPerSend() {
        return perSendTx;
    }

    /** IP_TOS (and IPV6_TCLASS on an IPv6 socket) for later sends; called on the send path's thread. */
    @Override
    public boolean trafficClass(int tos) throws SocketException {
        if (!lifecycle.enter()) {
            throw new SocketException("setsockopt", Errno.EBADF, "socket closed", null);
        }
        try {
            sendOption.set(JAVA_INT, 0, tos & 0xFF);
            int rc;
            if (family == SocketConstants.AF_INET6) {
                rc = Libc.setsockopt(sendState, fd, SocketConstants.SOL_IPV6, SocketConstants.IPV6_TCLASS,
                        sendOption, 4);
                Libc.setsockopt(sendState, fd, SocketConstants.SOL_IP, SocketConstants.IP_TOS, sendOption, 4);
            } else {
                rc = Libc.setsockopt(sendState, fd, SocketConstants.SOL_IP, SocketConstants.IP_TOS, sendOption, 4);
            }
            return rc == 0;
        } finally {
            lifecycle.exit();
        }
    }

    /**
     * The send path's staging memory for {@code length} bytes: allocated, or replaced by a larger one, when too small.
     * Called where the destination changes (the first send of a socket: a branch every socket takes, so that a
     * compiled {@link #send} keeps it) and, rarely, from {@link #send} when a heap datagram is longer than any before.
     */
    private MemorySegment sendStaging(long length) throws SocketException {
        if (length > STAGING_BYTES) {
            throw new SocketException("sendto", Errno.EMSGSIZE);
        }
        MemorySegment staging = sendStaging;
        if (staging.byteSize() < length) {
            staging = arena.allocate(stagingBytes(length), 8);
            sendStaging = staging;
        }
        return staging;
    }

    /** The receive path's staging memory for {@code capacity} bytes, like {@link #sendStaging(long)}. */
    private MemorySegment receiveStaging(long capacity) {
        MemorySegment staging = recvStaging;
        if (staging.byteSize() < capacity) {
            staging = arena.allocate(stagingBytes(capacity), 8);
            recvStaging = staging;
        }
        return staging;
    }

    /**
     * The size of a staging buffer holding {@code bytes}: the next power of two, at least {@value #MIN_STAGING_BYTES}
     * and at most {@value #STAGING_BYTES} (callers never ask for more). Powers of two bound what a growing use leaves
     * behind in the arena to the size of the last buffer.
     */
    static long stagingBytes(long bytes) {
        long size = MIN_STAGING_BYTES;
        while (size < bytes && size < STAGING_BYTES) {
            size <<= 1;
        }
        return size;
    }

    /** Bytes of send and receive staging memory allocated so far (the latest buffers; tests). */
    long[] stagingAllocated() {
        return new long[] {sendStaging.byteSize(), recvStaging.byteSize()};
    }

    private void cacheDestination(InetSocketAddress destination, int heapLength) throws SocketException {
        cachedDestination = null;
        if (heapLength > 0) {
            sendStaging(heapLength);
        }
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
        if (!lifecycle.enter()) {
            return CLOSED;
        }
        try {
            if (lifecycle.closing()) {
                return CLOSED;
            }
            boolean direct = buffer.isNative();
            long capacity = direct ? buffer.byteSize() : Math.min(buffer.byteSize(), STAGING_BYTES);
            MemorySegment staging = direct ? buffer : receiveStaging(capacity);
            recvIov.set(ADDRESS, 0, staging);
            recvIov.set(JAVA_LONG, 8, capacity);
            boolean sameTimeout = timeoutNs == recvTimeoutNs || (timeoutNs < 0 && recvTimeoutNs < 0);
            long n;
            if (timeoutNs == 0 || !sameTimeout) {
                // non-blocking, or a new timeout: take a ready datagram without touching SO_RCVTIMEO
                n = recvmsg(MSG_DONTWAIT);
                if (n == -Errno.EAGAIN && timeoutNs != 0 && !lifecycle.closing()) {
                    setReceiveTimeout(timeoutNs);
                    n = recvmsg(0);
                }
            } else {
                n = recvmsg(0);
            }
            if (n < 0) {
                if (lifecycle.closing()) {
                    return CLOSED;
                }
                if (n == -Errno.EAGAIN || (n == -Errno.ECONNREFUSED && connected)) {
                    return TIMEOUT; // a connected socket's ICMP error: nothing to read, as an unconnected one sees it
                }
                throw SocketException.of("recvmsg", (int) n);
            }
            if (n == 0 && lifecycle.closing()) {
                return CLOSED;
            }
            meta.reset();
            if (!kernelRxTimestamps) {
                meta.rxTimestamp(Libc.realtimeEpochNs(recvClock), TimestampSource.USER);
            }
            if (!direct) {
                MemorySegment.copy(staging, 0, buffer, 0, n);
            }
            meta.length((int) n, (recvMsg.get(JAVA_INT, MSG_FLAGS) & MSG_TRUNC) != 0);
            SockAddrs.decodeSource(recvName, recvMsg.get(JAVA_INT, MSG_NAMELEN), meta);
            ControlMessages.parseReceive(recvControl, recvMsg.get(JAVA_LONG, MSG_CONTROLLEN), meta);
            if (kernelRxTimestamps && meta.rxTimestampEpochNs() == 0) {
                meta.rxTimestamp(Libc.realtimeEpochNs(recvClock), TimestampSource.USER);
            }
            return (int) n;
        } finally {
            lifecycle.exit();
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
        } while (n == -Errno.EINTR && !lifecycle.closing());
        return n;
    }

    private void setReceiveTimeout(long timeoutNs) throws SocketException {
        long seconds = 0;
        long micros = 0;
        if (timeoutNs > 0) {
            seconds = timeoutNs / 1_000_000_000L;
            micros = (timeoutNs % 1_000_000_000L + 999) / 1000;
            if (micros == 1_000_000) {
                seconds++;
                micros = 0;
            }
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
    public void connect(InetSocketAddress peer) throws SocketException {
        if (!lifecycle.enter()) {
            throw new SocketException("connect", Errno.EBADF, "socket closed", null);
        }
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment address = scratch.allocate(SOCKADDR_STORAGE_BYTES, 8);
            int length = SockAddrs.encode(peer.getAddress(), peer.getPort(), family, address);
            if (length < 0) {
                throw SocketException.of("connect " + peer.getAddress().getHostAddress(), length);
            }
            int rc = Libc.connect(Libc.allocateCallState(scratch), fd, address, length);
            if (rc < 0) {
                throw SocketException.of("connect", rc);
            }
            connected = true;
        } finally {
            lifecycle.exit();
        }
    }

    @Override
    public int receiveBatch(DatagramBatch batch, long timeoutNs) throws SocketException {
        if (!lifecycle.enter()) {
            return CLOSED;
        }
        try {
            if (lifecycle.closing()) {
                return CLOSED;
            }
            boolean sameTimeout = timeoutNs == recvTimeoutNs || (timeoutNs < 0 && recvTimeoutNs < 0);
            int n;
            if (timeoutNs == 0 || !sameTimeout) {
                n = recvmmsg(batch, MSG_DONTWAIT);
                if (n == -Errno.EAGAIN && timeoutNs != 0 && !lifecycle.closing()) {
                    setReceiveTimeout(timeoutNs);
                    n = recvmmsg(batch, MSG_WAITFORONE);
                }
            } else {
                n = recvmmsg(batch, MSG_WAITFORONE);
            }
            if (n < 0) {
                batch.received(0);
                if (lifecycle.closing()) {
                    return CLOSED;
                }
                if (n == -Errno.EAGAIN || (n == -Errno.ECONNREFUSED && connected)) {
                    return TIMEOUT;
                }
                throw SocketException.of("recvmmsg", n);
            }
            long userStampNs = kernelRxTimestamps ? 0 : Libc.realtimeEpochNs(recvClock);
            int delivered = 0;
            for (int i = 0; i < n; i++) {
                long h = DatagramBatch.MMSG_BYTES * i;
                int length = batch.headers.get(JAVA_INT, h + DatagramBatch.MMSG_LEN);
                if (length == 0 && lifecycle.closing()) {
                    break;
                }
                ReceivedPacket meta = batch.meta(i);
                meta.reset();
                if (!kernelRxTimestamps) {
                    meta.rxTimestamp(userStampNs, TimestampSource.USER);
                }
                meta.length(length, (batch.headers.get(JAVA_INT, h + MSG_FLAGS) & MSG_TRUNC) != 0);
                SockAddrs.decodeSource(batch.nameSlots[i],
                        batch.headers.get(JAVA_INT, h + MSG_NAMELEN), meta);
                ControlMessages.parseReceive(batch.controlSlots[i], batch.headers.get(JAVA_LONG, h + MSG_CONTROLLEN), meta);
                if (kernelRxTimestamps && meta.rxTimestampEpochNs() == 0) {
                    meta.rxTimestamp(Libc.realtimeEpochNs(recvClock), TimestampSource.USER);
                }
                batch.length(i, length);
                delivered++;
            }
            batch.received(delivered);
            return delivered == 0 && lifecycle.closing() ? CLOSED : delivered;
        } finally {
            lifecycle.exit();
        }
    }

    /** recvmmsg into every slot of {@code batch}, EINTR retried; @return messages or -errno. */
    private int recvmmsg(DatagramBatch batch, int flags) {
        int capacity = batch.capacity();
        int n;
        do {
            batch.prepareReceive();
            n = Libc.recvmmsg(recvState, fd, batch.headers, capacity, flags);
        } while (n == -Errno.EINTR && !lifecycle.closing());
        if (n > 0) {
            batch.touched(n);
        }
        return n;
    }

    @Override
    public int sendBatch(DatagramBatch batch) throws SocketException {
        int count = batch.count();
        if (count == 0) {
            return 0;
        }
        if (!lifecycle.enter()) {
            throw new SocketException("sendmmsg", Errno.EBADF, "socket closed", null);
        }
        try {
            if (batch.encodedFamily != family) {
                Arrays.fill(batch.encodedDestinations, null);
                batch.encodedFamily = family;
            }
            for (int i = 0; i < count; i++) {
                long h = DatagramBatch.MMSG_BYTES * i;
                InetSocketAddress destination = batch.destination(i);
                if (destination != batch.encodedDestinations[i]) {
                    batch.encodedDestinations[i] = null;
                    InetAddress address = destination.getAddress();
                    if (address == null) {
                        throw new SocketException("sendmmsg", Errno.EDESTADDRREQ, "unresolved destination " + destination, null);
                    }
                    int length = SockAddrs.encode(address, destination.getPort(), family, batch.nameSlots[i]);
                    if (length < 0) {
                        throw SocketException.of("sendmmsg " + address.getHostAddress(), length);
                    }
                    batch.encodedLengths[i] = length;
                    batch.encodedDestinations[i] = destination;
                }
                batch.headers.set(JAVA_INT, h + MSG_NAMELEN, batch.encodedLengths[i]);
                batch.headers.set(JAVA_LONG, h + MSG_CONTROLLEN, 0);
                batch.headers.set(JAVA_INT, h + MSG_FLAGS, 0);
                batch.iovecs.set(JAVA_LONG, Structs.IOVEC.byteSize() * i + 8, batch.length(i));
            }
            batch.touched(count);
            int n;
            do {
                n = Libc.sendmmsg(sendState, fd, batch.headers, count, 0);
            } while (n == -Errno.EINTR);
            if (n >= 0) {
                sentPacketCount += n;
                if (!perSendTx) {
                    txStampId += n;
                }
                return n;
            }
            if (n == -Errno.EAGAIN || n == -Errno.ENOBUFS) {
                return 0;
            }
            throw SocketException.of("sendmmsg", n);
        } finally {
            lifecycle.exit();
        }
    }

    @Override
    public long kernelDrops() {
        if (!lifecycle.enter()) {
            return -1;
        }
        try {
            return setup.memInfoDrops();
        } finally {
            lifecycle.exit();
        }
    }

    @Override
    public int receiveBufferBytes() {
        int bytes = getIntOption(SOL_SOCKET, SO_RCVBUF);
        return bytes < 0 ? -1 : bytes;
    }

    @Override
    public int pollTxTimestamps(TxTimestampHandler handler) throws SocketException {
        if (!txTimestamps || !lifecycle.enter()) {
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
                    if (n == -Errno.EAGAIN || lifecycle.closing()) {
                        break;
                    }
                    throw SocketException.of("recvmsg(MSG_ERRQUEUE)", (int) n);
                }
                if (ControlMessages.parseTxTimestamp(errControl, errMsg.get(JAVA_LONG, MSG_CONTROLLEN), txReport)) {
                    delivered += deliverTxReport(handler);
                }
            }
            return delivered;
        } finally {
            lifecycle.exit();
        }
    }

    /** Hands the parsed {@code txReport} to {@code handler}; @return the stamps delivered (0..2). */
    private int deliverTxReport(TxTimestampHandler handler) {
        int delivered = 0;
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
        return delivered;
    }

    @Override
    public int pollTxTimestampsBatched(TxTimestampHandler handler) throws SocketException {
        if (!txTimestamps || !lifecycle.enter()) {
            return 0;
        }
        try {
            int delivered = 0;
            int read = 0;
            for (int calls = 0; read < MAX_TX_REPORTS_PER_POLL && calls < 2 * MAX_TX_REPORTS_PER_POLL; calls++) {
                for (int i = 0; i < TX_TIMESTAMP_BATCH; i++) {
                    long h = DatagramBatch.MMSG_BYTES * i;
                    errBatchHeaders.set(JAVA_LONG, h + MSG_CONTROLLEN, CONTROL_BYTES);
                    errBatchHeaders.set(JAVA_INT, h + MSG_FLAGS, 0);
                    errBatchHeaders.set(JAVA_INT, h + DatagramBatch.MMSG_LEN, 0);
                }
                int n = Libc.recvmmsg(errState, fd, errBatchHeaders, TX_TIMESTAMP_BATCH, MSG_ERRQUEUE | MSG_DONTWAIT);
                if (n < 0) {
                    if (n == -Errno.EINTR) {
                        continue;
                    }
                    if (n == -Errno.EAGAIN || lifecycle.closing()) {
                        break;
                    }
                    throw SocketException.of("recvmmsg(MSG_ERRQUEUE)", n);
                }
                for (int i = 0; i < n; i++) {
                    long h = DatagramBatch.MMSG_BYTES * i;
                    if (ControlMessages.parseTxTimestamp(errBatchControls[i], errBatchHeaders.get(JAVA_LONG, h + MSG_CONTROLLEN),
                            txReport)) {
                        delivered += deliverTxReport(handler);
                    }
                }
                read += n;
                if (n < TX_TIMESTAMP_BATCH) {
                    break;                          // non-blocking and short: the queue is empty
                }
            }
            return delivered;
        } finally {
            lifecycle.exit();
        }
    }

    /** The mmsghdr array of the batched error-queue read: no name, one shared data iovec, a control buffer each. */
    private void allocateErrorBatch() {
        MemorySegment headers = arena.allocate(DatagramBatch.MMSG_BYTES * TX_TIMESTAMP_BATCH, 8);
        MemorySegment controls = arena.allocate((long) CONTROL_BYTES * TX_TIMESTAMP_BATCH, 8);
        MemorySegment[] slots = new MemorySegment[TX_TIMESTAMP_BATCH];
        MemorySegment iov = arena.allocate(Structs.IOVEC);
        iov.set(ADDRESS, 0, arena.allocate(ERR_DATA_BYTES, 8));
        iov.set(JAVA_LONG, 8, ERR_DATA_BYTES);
        for (int i = 0; i < TX_TIMESTAMP_BATCH; i++) {
            long h = DatagramBatch.MMSG_BYTES * i;
            headers.set(ADDRESS, h + MSG_NAME, MemorySegment.NULL);
            headers.set(JAVA_INT, h + MSG_NAMELEN, 0);
            headers.set(ADDRESS, h + MSG_IOV, iov);
            headers.set(JAVA_LONG, h + MSG_IOVLEN, 1);
            slots[i] = controls.asSlice((long) CONTROL_BYTES * i, CONTROL_BYTES);
            headers.set(ADDRESS, h + MSG_CONTROL, slots[i]);
        }
        errBatchControls = slots;
        errBatchHeaders = headers;
    }

    @Override
    public long sentPacketCount() {
        return sentPacketCount;
    }

    @Override
    public void wakeup() {
        lifecycle.markClosing();
        if (lifecycle.enter()) {
            try {
                Libc.shutdown(fd, SHUT_RDWR);
            } finally {
                lifecycle.exit();
            }
        }
    }

    @Override
    public void close() {
        if (lifecycle.requestClose()) {
            // shutdown(2) only wakes a thread blocked in a call on this socket; with none inside there is nothing to
            // wake, and a run that never needs it does not link it (a downcall shape of its own). A thread entering
            // after markClosing() sees closing() before it blocks (enter() and users() are both sequentially
            // consistent, so at least one side sees the other).
            lifecycle.markClosing();
            if (lifecycle.busy()) {
                wakeup();
            }
            lifecycle.close();
            lifecycle.awaitReleased(CLOSE_WAIT_NS);
        }
    }

    /** True once the descriptor is closed and the native memory freed. */
    boolean isReleased() {
        return lifecycle.isReleased();
    }

    @Override
    public String toString() {
        return "NativeUdpSocket[fd=" + fd + ", local=" + localAddress + ", " + capabilities + "]";
    }
}
