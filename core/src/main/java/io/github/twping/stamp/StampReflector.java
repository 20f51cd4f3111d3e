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
import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.TimestampSource;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.net.AddressText;
import io.github.twping.protocol.Mode;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * A STAMP Session-Reflector (RFC 8762 §4.3) or TWAMP-Light reflector (RFC 5357 Appendix I) on one UDP socket, with
 * no control connection: every datagram from an allowed source is answered at once, on one platform thread.
 *
 * <p>Per packet: the kernel RX timestamp as Receive Timestamp, the received TTL as Sender TTL, the sender's
 * sequence number, timestamp, error estimate and SSID copied; the reply's sequence number is the sender's
 * (stateless) or a per-session counter (stateful; a session is the source address, port and SSID); the reply has
 * the request's length (RFC 8762 §4.3, symmetric size of RFC 6038; TWAMP-Light optionally asymmetric with reflected
 * octets) with the TLVs copied, their U/M/I flags set and the RFC 8972 TLVs answered (Timestamp Information, Class
 * of Service with the reply sent at the requested DSCP, Direct Measurement, Access Report, Follow-Up Telemetry
 * with the kernel TX stamp of the session's previous reply from the socket's error queue, HMAC TLV); the send
 * timestamp is taken last, then the reply is signed (authenticated; TWAMP-Light with the RFC 5357 test-packet
 * protection and configured keys) and sent. The Error Estimate comes from the reflector clock's state with this
 * reflector's Z flag.
 *
 * <p>Sources live in a preallocated open-addressing table of {@link StampReflectorSpec#maxPeers()} entries (each
 * with its reply address, allow-list verdict, counters, last TX stamp and rate bucket); a new source costs one
 * {@link InetSocketAddress}, later packets of it allocate nothing. When the table is full, new sources are still
 * answered (allocating) but get no state of their own: stateful counters, rate limits and Follow-Up stamps then do
 * not apply to them, their Direct Measurement counters are the reflector's totals ({@link #tableFull()} counts
 * them).
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
    /** The metadata of the datagram being handled: one of the receive batch's, or the tests' own. */
    private ReceivedPacket meta = new ReceivedPacket();
    /** Datagrams one receive call takes: a reflector that fell behind catches up in a few system calls. */
    static final int BATCH = 32;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment request;
    private final MemorySegment reply;
    private final SenderPacket in;
    private final ReflectorPacket out;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout replyLayout;
    private final int ssidOffset;
    private final StampHmac hmac;
    /** Authenticated TWAMP-Light: the RFC 5357 test-packet protection with the configured keys, else null. */
    private final TestPacketCipher lightCipher;
    private final SourceNetwork[] allowed;
    private final PeerTable peers;
    private final byte[] source = new byte[16];
    private final byte[] destination = new byte[16];
    /** The bound address (Location TLV destination), or null when bound to a wildcard address. */
    private final byte[] localAddressBytes;
    private final int localPort;
    private int locationFlags;

    private LongConsumer processingTimeNs = ns -> { };
    /** Read by the reflector thread per Timestamp Information TLV (a plain load on x86); set by any thread. */
    private volatile boolean ptpEvidence;
    private volatile boolean stopRequested;
    private volatile Thread thread;
    private volatile IOException failure;
    private volatile long kernelDrops = -1;
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
    private long badTlvHmac;
    private long followUpsReported;
    private long txStampsMatched;
    private long classOfServiceApplied;
    private long classOfServiceRefused;
    private long accessReports;
    private volatile int lastAccessReport = -1;

    // RFC 8972 TLV state: the TX stamps of replies (packet id -> peer and sequence), the reply TOS in force
    private static final int TX_RING = 1024;
    /**
     * Replies sent between two error-queue drains at most: the queue stays short and no ring slot is reused
     * before its stamp was read (a drain is also made before a Follow-Up Telemetry TLV that needs one).
     */
    static final int TX_DRAIN_EVERY = 32;
    private final long[] txRingId = new long[TX_RING];
    private final int[] txRingPeer = new int[TX_RING];
    private final long[] txRingSeq = new long[TX_RING];
    private final TxStamps txStamps = new TxStamps();
    private final boolean drainTxStamps;
    private int sentSinceDrain;
    private long txDrains;
    private int replyTos = -1;
    private int pendingTos;
    private int defaultTos;
    private int hmacTlvAt = -1;
    private int cosAt;
    private int tlvEnd;
    private long globalRx;
    private long globalTx;

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
            Mode mode = spec.authenticated() ? Mode.AUTHENTICATED
                    : Mode.OPEN;
            senderLayout = TestPacketLayout.senderFor(mode);
            replyLayout = TestPacketLayout.reflectorFor(mode);
            ssidOffset = -1;
        } else {
            senderLayout = StampLayouts.sender(spec.authenticated());
            replyLayout = StampLayouts.reflector(spec.authenticated());
            ssidOffset = StampLayouts.ssidOffset(spec.authenticated());
        }
        this.hmac = spec.authenticated() && !spec.light() ? new StampHmac(spec.key(), MAX_DATAGRAM + 4) : null;
        this.lightCipher = spec.authenticated() && spec.light() ? TestPacketCipher.forMode(
                Mode.AUTHENTICATED, StampReflectorSpec.lightKeys(spec.key())) : null;
        this.request = arena.allocate(MAX_DATAGRAM + 1, 16);
        this.reply = arena.allocate(MAX_DATAGRAM + replyLayout.length(), 16);
        this.in = new SenderPacket(senderLayout).wrap(request);
        this.out = new ReflectorPacket(replyLayout).wrap(reply);
        List<SourceNetwork> networks = spec.allowed();
        this.allowed = networks.toArray(new SourceNetwork[0]);
        this.peers = new PeerTable(spec.maxPeers());
        this.drainTxStamps = socket.capabilities().txTimestamps();
        InetSocketAddress bound = socket.localAddress();
        InetAddress boundAddress = bound == null ? null : bound.getAddress();
        this.localAddressBytes = boundAddress == null || boundAddress.isAnyLocalAddress() ? null
                : AddressText.unmapped(boundAddress).getAddress();
        this.localPort = bound == null ? 0 : bound.getPort();
        Arrays.fill(txRingId, -1);
    }

    /**
     * Opens a reflector socket on {@code bind}: IP TTL 255 on replies, received TTL and TOS, kernel RX timestamps,
     * {@code SessionReflector}'s 16 MiB buffers (the options of the TWAMP reflector), kernel TX timestamps of the replies for the
     * Follow-Up Telemetry TLV (RFC 8972 §4.7), and each request's destination address for the Location TLV
     * (§4.2).
     */
    public static UdpSocket openSocket(InetSocketAddress bind, int tos) throws SocketException {
        return UdpSocket.open(SessionReflector.socketOptions(bind, tos)
                .timestamping(Timestamping.RX_TX_SOFTWARE).receiveDestination(true).build());
    }

    /**
     * Receives each reflected packet's processing time in ns (the Receive Timestamp to the reply's send stamp) on
     * the reflector thread; it must not block or allocate. Set before {@link #start}; the metrics hook.
     */
    public StampReflector processingTime(LongConsumer consumer) {
        this.processingTimeNs = consumer;
        return this;
    }

    /**
     * Whether PTP steers this host's clock ({@link ClockSyncSource#ptpEvidence}): the Timestamp Information TLV
     * then reports PTP instead of NTP while the kernel says the clock is synchronized. Any thread, also while the
     * reflector runs ({@link ClockSyncSource#refresh}); replies after the call report the new source.
     */
    public StampReflector ptpEvidence(boolean evidence) {
        this.ptpEvidence = evidence;
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
        // MAX_DATAGRAM + 1 bytes per slot: a longer datagram shows as truncated, as with the single receive
        try (DatagramBatch batch = new DatagramBatch(BATCH, MAX_DATAGRAM + 1)) {
            while (!stopRequested) {
                int n = socket.receiveBatch(batch, -1);
                if (n == UdpSocket.CLOSED) {
                    return;
                }
                handleBatch(batch, n);
            }
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new IOException("reflector: " + e, e);
        } finally {
            kernelDrops = socket.kernelDrops(); // before close() releases the socket
        }
    }

    /**
     * The {@code n} datagrams of one receive call. A method of its own, not the body of {@link #run}'s loop: a
     * reflector's {@code run} is entered once and stays in the interpreter until on-stack replacement after tens of
     * thousands of loop turns, whereas this is compiled after a few thousand calls, which the start-up warm-up of
     * another instance makes ({@link StampReflectorWarmUp}).
     */
    private void handleBatch(DatagramBatch batch, int n) throws IOException {
        for (int i = 0; i < n && !stopRequested; i++) {
            int length = batch.length(i);
            MemorySegment.copy(batch.buffer(i), 0, request, 0, Math.min(length, MAX_DATAGRAM + 1));
            meta = batch.meta(i);
            handle(length);
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
        if (lightCipher != null && !lightCipher.openSender(request, n)) {
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
        if (peer >= 0) {
            peers.rxCount[peer]++;
        }
        globalRx++;
        pendingTos = -1;
        int tail = replyLength - replyLayout.length();
        if (tail > 0) {
            MemorySegment.copy(request, senderLayout.length(), reply, replyLayout.length(), tail);
            if (!spec.light()) {
                processTlvs(replyLayout.length(), replyLength, peer);
            }
        }
        applyReplyTos();
        for (int attempt = 0; attempt < SEND_RETRIES; attempt++) {
            long sendEpochNs = clock.nowEpochNs();
            out.timestampNtp(spec.format().fromEpochNanos(sendEpochNs))
                    .errorEstimate(spec.format().markErrorEstimate(clock.errorEstimate()));
            if (hmac != null) {
                hmac.sign(reply, 0, StampLayouts.HMAC_COVERED, replyLayout.hmacOffset());
            }
            if (lightCipher != null) {
                if (attempt > 0) {                     // block 0 was encrypted by the previous attempt
                    StampWire.int64(reply, 0, 0);
                    StampWire.int64(reply, 8, 0);
                    out.sequenceNumber(seq);
                }
                lightCipher.sealReflector(reply);
            }
            long packetId = socket.sentPacketCount();
            if (socket.send(reply, replyLength, destination) > 0) {
                processingTimeNs.accept(sendEpochNs - receivedEpochNs); // before the count: reflected() covers it
                reflected++;
                globalTx++;
                if (peer >= 0) {
                    peers.txCount[peer]++;
                    peers.lastSentId[peer] = packetId;
                    int slot = (int) (packetId & (TX_RING - 1));
                    txRingId[slot] = packetId;
                    txRingPeer[slot] = peer;
                    txRingSeq[slot] = seq;
                }
                if (drainTxStamps && ++sentSinceDrain >= TX_DRAIN_EVERY) {
                    drainTxStamps();
                }
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
     * RFC 6038 §4.2 symmetric size), or, asymmetric, 41 plus the octets to reflect that the sender's padding
     * has (RFC 6038 §4.2 reflect octets).
     */
    private int replyLength(int n) {
        if (spec.asymmetric()) {
            return replyLayout.length() + Math.min(spec.reflectOctets(), n - senderLayout.length());
        }
        return Math.max(n, replyLayout.length());
    }
    /**
     * Walks the TLVs of the reply in {@code [from, end)} (a copy of the request's) and answers them (RFC 8972 §4):
     * a recognised TLV with a valid length gets U, M and I cleared and its reflector fields filled; a recognised TLV
     * with a length invalid for its type gets M set and is copied; an unknown TLV (or an HMAC TLV this reflector
     * has no key for) gets U set and its value copied untouched; a TLV whose length runs past the datagram gets M
     * set and ends the walk, as do trailing bytes too short for a header. An HMAC TLV (§4.8) is verified over the
     * request's Sequence Number and preceding TLVs (I set on every TLV when it fails) and recomputed over the
     * reply's.
     */
    private void processTlvs(int from, int end, int peer) throws IOException {
        int at = from;
        hmacTlvAt = -1;
        tlvEnd = end;
        while (at < end) {
            if (end - at < StampTlv.HEADER_LENGTH) {
                malformedTlvs++;
                tlvEnd = at;
                break;                                    // no room for the flags of a header: left as copied
            }
            int flags = StampWire.uint8(reply, at);
            int type = StampWire.uint8(reply, at + 1);
            int length = StampWire.uint16(reply, at + 2);
            int value = at + StampTlv.HEADER_LENGTH;
            if (value + length > end) {
                StampWire.uint8(reply, at, (flags & ~StampTlv.FLAG_U) | StampTlv.FLAG_M);
                malformedTlvs++;
                tlvEnd = at;
                break;
            }
            flags &= ~(StampTlv.FLAG_U | StampTlv.FLAG_M | StampTlv.FLAG_I);
            if (!StampTlv.recognised(type) || (type == StampTlv.HMAC && hmac == null)) {
                flags |= StampTlv.FLAG_U;
                unknownTlvs++;
            } else if (!StampTlv.validLength(type, length)) {
                flags |= StampTlv.FLAG_M;
                malformedTlvs++;
            } else {
                locationFlags = 0;
                answer(type, value, peer, length);
                if (type == StampTlv.LOCATION && locationFlags != 0) {
                    flags |= locationFlags;
                    malformedTlvs++;
                }
                if (type == StampTlv.HMAC) {
                    hmacTlvAt = at;
                }
            }
            StampWire.uint8(reply, at, flags);
            at = value + length;
        }
        if (hmacTlvAt >= 0) {
            int tlvFrom = senderLayout.length();
            int tag = hmacTlvAt + StampTlv.HEADER_LENGTH;
            if (!hmac.verifyTlvs(request, tlvFrom, hmacTlvAt, tag)) {
                badTlvHmac++;
                for (int t = from; t + StampTlv.HEADER_LENGTH <= tlvEnd; ) {
                    StampWire.uint8(reply, t, StampWire.uint8(reply, t) | StampTlv.FLAG_I);
                    t += StampTlv.HEADER_LENGTH + StampWire.uint16(reply, t + 2);
                }
            }
        }
    }

    /** Fills the reflector's fields of one recognised, well-formed TLV whose value starts at {@code value}. */
    private void answer(int type, int value, int peer, int length) throws IOException {
        switch (type) {
            case StampTlv.LOCATION -> location(value, length);
            case StampTlv.TIMESTAMP_INFORMATION -> {
                int sync = ClockSyncSource.syncSource(ptpEvidence, clock.errorEstimate());
                StampWire.uint8(reply, value, sync);
                StampWire.uint8(reply, value + 1, method(meta.timestampSource()));
                StampWire.uint8(reply, value + 2, sync);
                StampWire.uint8(reply, value + 3, StampTlv.METHOD_USER_SPACE);   // the send timestamp field
            }
            case StampTlv.CLASS_OF_SERVICE -> {
                int dscp1 = StampWire.uint8(reply, value) >> 2;
                int tos = meta.tos();
                int received = tos < 0 ? 0 : tos;
                pendingTos = dscp1 << 2 | (received & 3);   // the reply: DSCP1, and the ECN as received
                cosAt = value;
                int word = dscp1 << 10 | (received >> 2) << 4 | (received & 3) << 2;   // RP set later if refused
                StampWire.uint16(reply, value, word);
                StampWire.uint16(reply, value + 2, 0);
            }
            case StampTlv.DIRECT_MEASUREMENT -> {
                long rx = peer >= 0 ? peers.rxCount[peer] : globalRx;
                long tx = (peer >= 0 ? peers.txCount[peer] : globalTx) + 1;   // this reply included
                StampWire.int32(reply, value + 4, (int) rx);
                StampWire.int32(reply, value + 8, (int) tx);
            }
            case StampTlv.ACCESS_REPORT -> {
                accessReports++;
                lastAccessReport = StampWire.uint16(reply, value);
            }
            case StampTlv.FOLLOW_UP_TELEMETRY -> {
                if (drainTxStamps && peer >= 0 && peers.lastSentId[peer] >= 0
                        && peers.lastStampedId[peer] != peers.lastSentId[peer]) {
                    drainTxStamps();                      // the session's previous reply has no stamp read yet
                }
                if (peer >= 0 && peers.lastTxSeq[peer] >= 0) {
                    StampWire.int32(reply, value, (int) peers.lastTxSeq[peer]);
                    StampWire.int64(reply, value + 4, spec.format().fromEpochNanos(
                            clock.adjustEpochNs(peers.lastTxEpochNs[peer])));
                    StampWire.uint8(reply, value + 12, peers.lastTxHardware[peer] ? StampTlv.METHOD_HW_ASSIST
                            : StampTlv.METHOD_SW_LOCAL);
                    followUpsReported++;
                } else {
                    StampWire.int32(reply, value, 0);
                    StampWire.int64(reply, value + 4, 0);
                    StampWire.uint8(reply, value + 12, 0);
                }
                StampWire.uint8(reply, value + 13, 0);
                StampWire.uint16(reply, value + 14, 0);
            }
            default -> {
                // Extra Padding: copied; HMAC: recomputed after the walk
            }
        }
    }

    /**
     * The Location TLV (RFC 8972 §4.2): Destination Port and Source Port of the received packet, then each sub-TLV
     * filled: the source address (sub-TLV 4 or 6, the received packet's family), the destination address (3 or 5:
     * the request's destination as the kernel reports it, else the address this reflector is bound to; when
     * neither is known, left zero with U set). A sub-TLV of the other address family, a MAC or EUI-64 sub-TLV (a UDP socket does not see
     * them) or an unknown type gets U; a sub-TLV of a wrong length gets M, as does the Location TLV itself
     * ({@link #locationFlags}); a sub-TLV running past the value ends the walk with M on the Location TLV.
     */
    private void location(int value, int length) {
        StampWire.uint16(reply, value, localPort);
        StampWire.uint16(reply, value + 2, meta.sourcePort());
        int addressLength = meta.sourceAddressLength();
        int end = value + length;
        int at = value + StampTlv.LOCATION_LENGTH;
        while (at < end) {
            if (end - at < StampTlv.HEADER_LENGTH) {
                locationFlags |= StampTlv.FLAG_M;
                return;
            }
            int subType = StampWire.uint8(reply, at + 1);
            int subLength = StampWire.uint16(reply, at + 2);
            int sub = at + StampTlv.HEADER_LENGTH;
            if (sub + subLength > end) {
                StampWire.uint8(reply, at, StampTlv.FLAG_M);
                locationFlags |= StampTlv.FLAG_M;
                return;
            }
            int want = switch (subType) {
                case StampTlv.SUB_DESTINATION_IPV4, StampTlv.SUB_SOURCE_IPV4 -> 4;
                case StampTlv.SUB_DESTINATION_IPV6, StampTlv.SUB_SOURCE_IPV6 -> 16;
                default -> -1;
            };
            int subFlags;
            if (want < 0) {
                subFlags = StampTlv.FLAG_U;
            } else if (subLength != want) {
                subFlags = StampTlv.FLAG_M;
                locationFlags |= StampTlv.FLAG_M;
            } else if (want != addressLength) {
                subFlags = StampTlv.FLAG_U;                  // the other family than the packet's
            } else if (subType == StampTlv.SUB_SOURCE_IPV4 || subType == StampTlv.SUB_SOURCE_IPV6) {
                MemorySegment.copy(source, 0, reply, ValueLayout.JAVA_BYTE, sub, want);
                subFlags = 0;
            } else if (meta.destinationAddressLength() == want) {
                meta.destinationAddressBytes(destination, 0);   // the request's destination (IP_PKTINFO)
                MemorySegment.copy(destination, 0, reply, ValueLayout.JAVA_BYTE, sub, want);
                subFlags = 0;
            } else if (localAddressBytes != null && localAddressBytes.length == want) {
                MemorySegment.copy(localAddressBytes, 0, reply, ValueLayout.JAVA_BYTE, sub, want);
                subFlags = 0;
            } else {
                subFlags = StampTlv.FLAG_U;                  // not known: no IP_PKTINFO and a wildcard bind
            }
            StampWire.uint8(reply, at, subFlags);
            at = sub + subLength;
        }
    }

    private static int method(TimestampSource source) {
        return switch (source) {
            case KERNEL_HARDWARE -> StampTlv.METHOD_HW_ASSIST;
            case KERNEL_SOFTWARE -> StampTlv.METHOD_SW_LOCAL;
            case USER -> StampTlv.METHOD_USER_SPACE;
        };
    }

    /**
     * Signs the reply's HMAC TLV (all other reply TLV fields are final) and puts the reply's TOS in force: the
     * Class of Service DSCP1 when the request asked for one, else the reflector's own (a setsockopt only when it
     * changes).
     */
    private void applyReplyTos() throws IOException {
        int want = pendingTos >= 0 ? pendingTos : defaultTos;
        if (want != replyTos && (pendingTos >= 0 || replyTos >= 0)) {
            if (socket.trafficClass(want)) {
                replyTos = want;
            }
        }
        if (pendingTos >= 0) {
            if (replyTos == want) {
                classOfServiceApplied++;
            } else {
                classOfServiceRefused++;
                StampWire.uint8(reply, cosAt + 1, StampWire.uint8(reply, cosAt + 1) | 1);   // RP = 1
            }
        }
        if (hmacTlvAt >= 0) {
            hmac.signTlvs(reply, replyLayout.length(), hmacTlvAt, hmacTlvAt + StampTlv.HEADER_LENGTH);
            hmacTlvAt = -1;
        }
    }

    /**
     * Reads the socket's error queue (TX stamps of replies), up to 32 entries per system call; made every
     * {@link #TX_DRAIN_EVERY} replies and before a Follow-Up Telemetry TLV whose session's last reply has no stamp
     * read yet, not per datagram.
     */
    private void drainTxStamps() throws IOException {
        socket.pollTxTimestampsBatched(txStamps);
        sentSinceDrain = 0;
        txDrains++;
    }

    /** Error-queue drains made (package-private, for tests). */
    long txDrains() {
        return txDrains;
    }

    /** Records the kernel TX stamps of replies for the Follow-Up Telemetry of each session's next reply. */
    private final class TxStamps implements TxTimestampHandler {
        @Override
        public void onTxTimestamp(long packetId, long epochNs, boolean hardware) {
            int slot = (int) (packetId & (TX_RING - 1));
            if (txRingId[slot] != packetId) {
                return;
            }
            int peer = txRingPeer[slot];
            peers.lastTxSeq[peer] = txRingSeq[slot];
            peers.lastTxEpochNs[peer] = epochNs;
            peers.lastTxHardware[peer] = hardware;
            peers.lastStampedId[peer] = packetId;
            txRingId[slot] = -1;
            txStampsMatched++;
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

    /**
     * Datagrams the kernel dropped at the reflector's socket because its receive buffer was full (loss inside
     * this host, not on the network), read when the reflector thread ends; -1 while it runs or when the socket
     * cannot tell (NIO fallback).
     */
    public long kernelDrops() {
        return kernelDrops;
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

    /** HMAC TLVs that did not verify (reflected with the I flag, RFC 8972 §4.8). */
    public long badTlvHmac() {
        return badTlvHmac;
    }

    /** Follow-Up Telemetry TLVs answered with a kernel TX stamp of the session's previous reply. */
    public long followUpsReported() {
        return followUpsReported;
    }

    /** Kernel TX stamps of replies matched to their session. */
    public long txStampsMatched() {
        return txStampsMatched;
    }

    /** Replies sent with the DSCP a Class of Service TLV asked for. */
    public long classOfServiceApplied() {
        return classOfServiceApplied;
    }

    /** Class of Service requests whose DSCP could not be set on the socket (RP = 1 in the reply). */
    public long classOfServiceRefused() {
        return classOfServiceRefused;
    }

    /** Access Report TLVs received (RFC 8972 §4.6). */
    public long accessReports() {
        return accessReports;
    }

    /** The last Access Report's first two octets (ID, Reserved, Return Code), or -1; any thread. */
    public int lastAccessReport() {
        return lastAccessReport;
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
        /** Datagrams received from the session (its Direct Measurement R_RxC). */
        final long[] rxCount;
        /** Replies sent to the session (its Direct Measurement R_TxC). */
        final long[] txCount;
        /** Sequence number of the session's last reply with a kernel TX stamp, or -1 (Follow-Up Telemetry). */
        final long[] lastTxSeq;
        /** The kernel TX stamp of that reply (CLOCK_REALTIME ns, or the NIC's). */
        final long[] lastTxEpochNs;
        final boolean[] lastTxHardware;
        /** Packet id of the session's last reply sent, -1 before the first. */
        final long[] lastSentId;
        /** Packet id of the session's last reply whose TX stamp was read, -1 before the first. */
        final long[] lastStampedId;
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
            rxCount = new long[c];
            txCount = new long[c];
            lastTxSeq = new long[c];
            lastTxEpochNs = new long[c];
            lastTxHardware = new boolean[c];
            lastSentId = new long[c];
            lastStampedId = new long[c];
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
                        && Arrays.equals(addresses, i * 16, i * 16 + length, a, 0, length)) {
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
            rxCount[i] = 0;
            txCount[i] = 0;
            lastTxSeq[i] = -1;
            lastTxEpochNs[i] = 0;
            lastTxHardware[i] = false;
            lastSentId[i] = -1;
            lastStampedId[i] = -1;
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
