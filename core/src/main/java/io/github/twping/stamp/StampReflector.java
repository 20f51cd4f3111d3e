package io.github.twping.stamp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.session.ReflectorClock;
import io.github.twping.session.SessionReflector;

/**
 * A STAMP Session-Reflector (RFC 8762 §4.3) or TWAMP-Light reflector (RFC 5357 Appendix I) on one UDP socket, with
 * no control connection: every datagram from an allowed source is answered at once, on one platform thread.
 *
 * <p>Per packet: the kernel RX timestamp as Receive Timestamp, the received TTL as Sender TTL, the sender's
 * sequence number, timestamp, error estimate and SSID copied; the reply's sequence number is the sender's
 * (stateless) or a per-session counter (stateful; a session is the source address, port and SSID); the reply has
 * the request's length (RFC 8762 §4.3, symmetric size of RFC 6038) with the TLVs copied and their U/M flags set
 * (RFC 8972 §4); the send timestamp is taken last, then the reply is signed (authenticated) and sent. The Error
 * Estimate comes from the reflector clock's state with this reflector's Z flag.
 *
 * <p>Sources live in a preallocated open-addressing table of {@link StampReflectorSpec#maxPeers()} entries (each
 * with its reply address, allow-list verdict, counter and rate bucket); a new source costs one
 * {@link InetSocketAddress}, later packets of it allocate nothing. When the table is full, new sources are still
 * answered (allocating) but get no state of their own: stateful counters and rate limits then do not apply to
 * them ({@link #tableFull()} counts them).
 */
public final class StampReflector implements AutoCloseable {
    /** Largest datagram handled; longer ones are truncated by the kernel and dropped. */
    public static final int MAX_DATAGRAM = 65_535;

    private static final int SEND_RETRIES = 100;
    private static final long SEND_RETRY_PARK_NS = 10_000;
    private static final long NS_PER_SECOND = 1_000_000_000L;

    private final StampReflectorSpec spec;
    private final UdpSocket socket;
    private final ReflectorClock clock;
    private final ReceivedPacket meta = new ReceivedPacket();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment request;
    private final MemorySegment reply;
    private final SenderPacket in;
    private final ReflectorPacket out;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout replyLayout;
    private final int ssidOffset;
    private final StampHmac hmac;
    private final SourceNetwork[] allowed;
    private final PeerTable peers;
    private final byte[] source = new byte[16];

    private java.util.function.LongConsumer processingTimeNs = ns -> { };
    private volatile boolean stopRequested;
    private volatile Thread thread;
    private volatile IOException failure;
    private boolean closed;

    // counters: written by the reflector thread only; read after awaitEnd() (or racy while running)
    private volatile long reflected;
    private long shortPackets;
    private long truncated;
    private long badHmac;
    private long notAllowed;
    private long rateLimited;
    private long malformedTlvs;
    private long unknownTlvs;
    private long tableFull;
    private long sendRetries;

    /**
     * @param spec   how to answer
     * @param socket the bound socket (owned from now on); {@link #openSocket} gives the usual options
     * @param clock  timestamps and error estimate (null = the system clock with the kernel's state)
     */
    public StampReflector(StampReflectorSpec spec, UdpSocket socket, ReflectorClock clock) {
        this.spec = spec;
        this.socket = socket;
        this.clock = clock == null ? ReflectorClock.system() : clock;
        if (spec.light()) {
            senderLayout = TestPacketLayout.UNAUTHENTICATED_SENDER;
            replyLayout = TestPacketLayout.UNAUTHENTICATED_REFLECTOR;
            ssidOffset = -1;
        } else {
            senderLayout = StampLayouts.sender(spec.authenticated());
            replyLayout = StampLayouts.reflector(spec.authenticated());
            ssidOffset = StampLayouts.ssidOffset(spec.authenticated());
        }
        this.hmac = spec.authenticated() ? new StampHmac(spec.key(), StampLayouts.HMAC_COVERED) : null;
        this.request = arena.allocate(MAX_DATAGRAM + 1, 16);
        this.reply = arena.allocate(MAX_DATAGRAM + replyLayout.length(), 16);
        this.in = new SenderPacket(senderLayout).wrap(request);
        this.out = new ReflectorPacket(replyLayout).wrap(reply);
        List<SourceNetwork> networks = spec.allowed();
        this.allowed = networks.toArray(new SourceNetwork[0]);
        this.peers = new PeerTable(spec.maxPeers());
    }

    /**
     * Opens a reflector socket on {@code bind}: IP TTL 255 on replies, received TTL and TOS, kernel RX timestamps,
     * 4 MiB buffers (the options of the TWAMP reflector).
     */
    public static UdpSocket openSocket(InetSocketAddress bind, int tos) throws SocketException {
        return UdpSocket.open(SessionReflector.socketOptions(bind, tos).build());
    }

    /**
     * Receives each reflected packet's processing time in ns (the Receive Timestamp to the reply's send stamp) on
     * the reflector thread; it must not block or allocate. Set before {@link #start}; the metrics hook.
     */
    public StampReflector processingTime(java.util.function.LongConsumer consumer) {
        this.processingTimeNs = consumer;
        return this;
    }

    /** Starts answering on a new platform thread; a second call does nothing. */
    public synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        Thread t = Thread.ofPlatform().daemon(true).name("stamp-reflector-" + socket.localAddress().getPort())
                .unstarted(this::run);
        thread = t;
        t.start();
    }

    /** Asks the reflector thread to end (any thread). */
    public void stop() {
        stopRequested = true;
        socket.wakeup();
    }

    /** Waits up to {@code timeoutNs} for the thread to end; true if it ended or never started. */
    public boolean awaitEnd(long timeoutNs) throws InterruptedException {
        Thread t = thread;
        return t == null || t.join(Duration.ofNanos(Math.max(1, timeoutNs)));
    }

    /** The bound local address. */
    public InetSocketAddress localAddress() {
        return socket.localAddress();
    }

    /** The socket error that ended the reflector, or null. */
    public IOException failure() {
        return failure;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        stop();
        try {
            awaitEnd(5 * NS_PER_SECOND);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        socket.close();
        Thread t = thread;
        if (t == null || !t.isAlive()) {
            arena.close();
        }
    }

    private void run() {
        try {
            while (!stopRequested) {
                int n = socket.receive(request, meta, -1);
                if (n == UdpSocket.CLOSED) {
                    return;
                }
                if (n >= 0) {
                    handle(n);
                }
            }
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new IOException("reflector: " + e, e);
        }
    }

    /** One datagram of {@code n} bytes; package-private for the fuzz test. */
    void handle(int n) throws IOException {
        if (n > MAX_DATAGRAM || meta.truncated()) {
            truncated++;
            return;
        }
        if (n < senderLayout.length()) {
            shortPackets++;
            return;
        }
        int addressLength = meta.sourceAddressLength();
        meta.sourceAddressBytes(source, 0);
        int port = meta.sourcePort();
        int ssid = ssidOffset < 0 ? 0 : StampWire.uint16(request, ssidOffset);
        int peer = peers.find(source, addressLength, port, spec.stateful() ? ssid : 0);
        InetSocketAddress destination;
        if (peer < 0) {
            if (!isAllowed(addressLength)) {
                notAllowed++;
                return;
            }
            destination = meta.sourceAddress();
            peer = peers.insert(source, addressLength, port, spec.stateful() ? ssid : 0, destination,
                    System.nanoTime(), spec.ratePerSource());
            if (peer < 0) {
                tableFull++;
            }
        } else {
            if (!peers.allowed[peer]) {
                notAllowed++;
                return;
            }
            destination = peers.address[peer];
        }
        if (peer >= 0 && spec.ratePerSource() > 0 && !peers.take(peer, System.nanoTime(), spec.ratePerSource())) {
            rateLimited++;
            return;
        }
        if (hmac != null && !hmac.verify(request, 0, StampLayouts.HMAC_COVERED, senderLayout.hmacOffset())) {
            badHmac++;
            return;
        }
        long rxEpochNs = meta.rxTimestampEpochNs();
        long receivedEpochNs = clock.adjustEpochNs(rxEpochNs > 0 ? rxEpochNs : clock.nowEpochNs());
        long receiveWire = spec.format().fromEpochNanos(receivedEpochNs);
        int replyLength = replyLength(n);
        long senderSeq = in.sequenceNumber();
        long seq = spec.stateful() && peer >= 0 ? peers.next(peer) : senderSeq;
        int ttl = meta.ttl();
        out.clearMbz().sequenceNumber(seq).receiveTimestampNtp(receiveWire)
                .senderSequenceNumber(senderSeq)
                .senderTimestampNtp(in.timestampNtp())
                .senderErrorEstimate(in.errorEstimate())
                .senderTtl(ttl < 0 ? 255 : ttl);
        if (ssidOffset >= 0) {
            StampWire.uint16(reply, ssidOffset, ssid);
        }
        int tail = replyLength - replyLayout.length();
        if (tail > 0) {
            MemorySegment.copy(request, senderLayout.length(), reply, replyLayout.length(), tail);
            if (!spec.light()) {
                markTlvs(replyLayout.length(), replyLength);
            }
        }
        for (int attempt = 0; attempt < SEND_RETRIES; attempt++) {
            long sendEpochNs = clock.nowEpochNs();
            out.timestampNtp(spec.format().fromEpochNanos(sendEpochNs))
                    .errorEstimate(spec.format().markErrorEstimate(clock.errorEstimate()));
            if (hmac != null) {
                hmac.sign(reply, 0, StampLayouts.HMAC_COVERED, replyLayout.hmacOffset());
            }
            if (socket.send(reply, replyLength, destination) > 0) {
                processingTimeNs.accept(sendEpochNs - receivedEpochNs); // before the count: reflected() covers it
                reflected++;
                return;
            }
            sendRetries++;
            LockSupport.parkNanos(SEND_RETRY_PARK_NS);
            if (stopRequested) {
                return;
            }
        }
    }

    /**
     * The reply length for a request of {@code n} bytes: STAMP answers with the same size (RFC 8762 §4.3);
     * TWAMP-Light with {@code max(n, 41)}, the sender's padding truncated or the reply's own (RFC 5357 §4.2.1,
     * RFC 6038 §4.2 symmetric size).
     */
    private int replyLength(int n) {
        return Math.max(n, replyLayout.length());
    }

    /**
     * Walks the TLVs of the reply in {@code [from, end)}: a recognised TLV gets U = 0, an unknown one U = 1 (its
     * value copied untouched); a TLV whose header or length runs past the datagram gets M = 1 and ends the walk,
     * as do trailing bytes too short for a header (RFC 8972 §4).
     */
    private void markTlvs(int from, int end) {
        int at = from;
        while (at < end) {
            if (end - at < StampTlv.HEADER_LENGTH) {
                malformedTlvs++;
                return;                                   // no room for the flags of a header: left as copied
            }
            int flags = StampWire.uint8(reply, at);
            int type = StampWire.uint8(reply, at + 1);
            int length = StampWire.uint16(reply, at + 2);
            if (at + StampTlv.HEADER_LENGTH + length > end) {
                StampWire.uint8(reply, at, (flags & ~StampTlv.FLAG_U) | StampTlv.FLAG_M);
                malformedTlvs++;
                return;
            }
            if (StampTlv.recognised(type)) {
                flags &= ~(StampTlv.FLAG_U | StampTlv.FLAG_M);
            } else {
                flags |= StampTlv.FLAG_U;
                unknownTlvs++;
            }
            StampWire.uint8(reply, at, flags);
            at += StampTlv.HEADER_LENGTH + length;
        }
    }

    private boolean isAllowed(int addressLength) {
        if (allowed.length == 0) {
            return true;
        }
        for (SourceNetwork network : allowed) {
            if (network.contains(source, addressLength)) {
                return true;
            }
        }
        return false;
    }

    /** Replies sent. */
    public long reflected() {
        return reflected;
    }

    /** Datagrams shorter than the base sender packet (dropped). */
    public long shortPackets() {
        return shortPackets;
    }

    /** Datagrams longer than {@link #MAX_DATAGRAM} (dropped). */
    public long truncated() {
        return truncated;
    }

    /** Authenticated datagrams whose HMAC did not verify (dropped). */
    public long badHmac() {
        return badHmac;
    }

    /** Datagrams from sources outside the allow-list (dropped). */
    public long notAllowed() {
        return notAllowed;
    }

    /** Datagrams over a source's rate limit (dropped). */
    public long rateLimited() {
        return rateLimited;
    }

    /** TLVs reflected with the M flag (or trailing bytes too short for a TLV header). */
    public long malformedTlvs() {
        return malformedTlvs;
    }

    /** TLVs reflected with the U flag. */
    public long unknownTlvs() {
        return unknownTlvs;
    }

    /** Packets of new sources answered without a table entry because the table was full. */
    public long tableFull() {
        return tableFull;
    }

    /** Sends the kernel refused (EAGAIN/ENOBUFS) and that were retried. */
    public long sendRetries() {
        return sendRetries;
    }

    /** Package-private hooks for the fuzz test: the receive buffer and metadata {@link #handle} reads. */
    MemorySegment requestBuffer() {
        return request;
    }

    ReceivedPacket metadata() {
        return meta;
    }

    /** Sources: open addressing on (address, port, SSID), preallocated, never shrinking. */
    static final class PeerTable {
        final int capacity;
        final int mask;
        final byte[] addresses;
        final int[] addressLengths;
        final int[] ports;
        final int[] ssids;
        final boolean[] used;
        final boolean[] allowed;
        final InetSocketAddress[] address;
        final long[] counters;
        final double[] tokens;
        final long[] refillNs;
        int size;

        PeerTable(int maxPeers) {
            int c = Integer.highestOneBit(Math.max(2, maxPeers) * 2 - 1);
            capacity = c;
            mask = c - 1;
            addresses = new byte[c * 16];
            addressLengths = new int[c];
            ports = new int[c];
            ssids = new int[c];
            used = new boolean[c];
            allowed = new boolean[c];
            address = new InetSocketAddress[c];
            counters = new long[c];
            tokens = new double[c];
            refillNs = new long[c];
        }

        private int hash(byte[] a, int length, int port, int ssid) {
            int h = port * 31 + ssid;
            for (int i = 0; i < length; i++) {
                h = h * 31 + a[i];
            }
            h ^= h >>> 16;
            return h * 0x9E3779B9;
        }

        int find(byte[] a, int length, int port, int ssid) {
            int i = hash(a, length, port, ssid) & mask;
            for (int probes = 0; probes < capacity && used[i]; probes++) {
                if (ports[i] == port && ssids[i] == ssid && addressLengths[i] == length
                        && java.util.Arrays.equals(addresses, i * 16, i * 16 + length, a, 0, length)) {
                    return i;
                }
                i = (i + 1) & mask;
            }
            return -1;
        }

        /** Adds an allowed source; -1 when the table is at its limit (half the slots, to keep probes short). */
        int insert(byte[] a, int length, int port, int ssid, InetSocketAddress destination, long nowNs, int rate) {
            if (size >= capacity / 2) {
                return -1;
            }
            int i = hash(a, length, port, ssid) & mask;
            while (used[i]) {
                i = (i + 1) & mask;
            }
            used[i] = true;
            allowed[i] = true;
            System.arraycopy(a, 0, addresses, i * 16, length);
            addressLengths[i] = length;
            ports[i] = port;
            ssids[i] = ssid;
            address[i] = destination;
            counters[i] = 0;
            tokens[i] = rate;
            refillNs[i] = nowNs;
            size++;
            return i;
        }

        long next(int i) {
            long v = counters[i];
            counters[i] = (v + 1) & 0xFFFF_FFFFL;
            return v;
        }

        /** Token bucket: {@code rate} per second, burst {@code rate}; @return false when over the limit. */
        boolean take(int i, long nowNs, int rate) {
            double t = tokens[i] + (nowNs - refillNs[i]) * (rate / (double) NS_PER_SECOND);
            refillNs[i] = nowNs;
            if (t > rate) {
                t = rate;
            }
            if (t < 1.0) {
                tokens[i] = t;
                return false;
            }
            tokens[i] = t - 1.0;
            return true;
        }
    }
}
