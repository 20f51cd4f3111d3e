package io.github.twping.stamp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.function.LongConsumer;

import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.net.AddressText;
import io.github.twping.protocol.ReflectorPacket;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.protocol.TestPacketLayout;
import io.github.twping.session.ReflectorClock;
import io.github.twping.session.ReflectorRunner;
import io.github.twping.session.SendRetry;
import io.github.twping.session.SessionReflector;
import io.github.twping.session.TestSocketOptions;

/**
 * A STAMP Session-Reflector (RFC 8762 §4.3) or TWAMP-Light reflector (RFC 5357 Appendix I) on one UDP socket, with
 * no control connection: every datagram from an allowed source is answered at once, on one platform thread (the
 * {@link ReflectorRunner} shell both reflectors share).
 *
 * <p>Per packet: the kernel RX timestamp as Receive Timestamp, the received TTL as Sender TTL, the sender's
 * sequence number, timestamp, error estimate and SSID copied; the reply's sequence number is the sender's
 * (stateless) or a per-session counter (stateful; a session is the source address, port and SSID); the reply has
 * the request's length (RFC 8762 §4.3, symmetric size of RFC 6038; TWAMP-Light optionally asymmetric with reflected
 * octets) with the TLVs copied and answered ({@link StampTlvResponder}); the reply's TOS is put in force and its
 * HMAC TLV signed; the send timestamp is taken last, then the reply is signed or sealed ({@link StampReplySigner})
 * and sent, a refused send retried by the {@link SendRetry} policy. The Error Estimate comes from the reflector
 * clock's state with this reflector's Z flag.
 *
 * <p>Sources live in a preallocated open-addressing {@link PeerTable} of {@link StampReflectorSpec#maxPeers()}
 * entries; a new source costs one {@link InetSocketAddress}, later packets of it allocate nothing. When the table is
 * full, new sources are still answered (allocating) but get no state of their own: stateful counters, rate limits
 * and Follow-Up stamps then do not apply to them, their Direct Measurement counters are the reflector's totals
 * ({@link #tableFull()} counts them).
 */
public final class StampReflector implements AutoCloseable {
    /** Largest datagram handled; longer ones are truncated by the kernel and dropped. */
    public static final int MAX_DATAGRAM = 65_535;
    /** Datagrams one receive call takes: a reflector that fell behind catches up in a few system calls. */
    static final int BATCH = 32;
    /**
     * The receive buffer asked for: four times a TWAMP session's ({@link TestSocketOptions#REFLECTOR_BUFFER_BYTES}),
     * since this one socket takes the requests of every sender. With SO_RCVBUFFORCE (CAP_NET_ADMIN) the kernel grants
     * twice this for its bookkeeping: at the 1,152 bytes of kernel memory a small datagram costs on loopback
     * ({@link TestSocketOptions}), about 116,000 datagrams (1.1 s at 100,000/s) that the reflector thread
     * can fall behind by before the kernel drops; without the capability it is capped at {@code net.core.rmem_max}.
     * Memory is charged only for datagrams queued.
     */
    public static final int RECEIVE_BUFFER_BYTES = 4 * TestSocketOptions.REFLECTOR_BUFFER_BYTES;
    /** Replies sent between two error-queue drains at most ({@link ReplyTxStamps#DRAIN_EVERY}). */
    static final int TX_DRAIN_EVERY = ReplyTxStamps.DRAIN_EVERY;

    private final StampReflectorSpec spec;
    private final UdpSocket socket;
    private final ReflectorClock clock;
    private final ReflectorRunner runner;
    /** The metadata of the datagram being handled: one of the receive batch's, or the tests' own. */
    private ReceivedPacket meta = new ReceivedPacket();
    private final Arena arena = Arena.ofShared();
    private final DatagramBatch batch;
    private final MemorySegment request;
    private final MemorySegment reply;
    private final SenderPacket in;
    private final ReflectorPacket out;
    private final TestPacketLayout senderLayout;
    private final TestPacketLayout replyLayout;
    private final boolean hasSsid;
    private final StampReplySigner signer;
    private final StampTlvResponder tlvs;
    private final ReplyTxStamps txStamps;
    private final SourceNetwork[] allowed;
    private final PeerTable peers;
    private final byte[] source = new byte[16];
    /**
     * STAMP: the shortest request answered with a base packet (RFC 8762 §4.6: a TWAMP-Light sender's 14 octets, 48
     * authenticated); the base length itself with {@link StampReflectorSpec#strict()}, and for TWAMP-Light.
     */
    private final int lightMinimum;

    private LongConsumer processingTimeNs = ns -> { };

    // counters: written by the reflector thread only; read after awaitEnd() (or racy while running)
    private volatile long reflected;
    private long shortPackets;
    private long truncated;
    private long badHmac;
    private int taiSeconds;
    private long notAllowed;
    private long rateLimited;
    private long tableFull;
    private long sendRetries;
    private long suppressed;
    private long zeroFilled;
    /** Set on the reflector thread when the kernel refused a stamped send: no reply is stamped from then on. */
    private boolean stampedSendsRefused;
    private volatile SocketException stampedSendsRefusal;
    /** Linux's EINVAL: what sendmsg returns for an SO_TIMESTAMPING control message before kernel 4.7. */
    private static final int EINVAL = 22;
    /** {@link #sendStamped}'s answer when the kernel refused the stamped send. */
    private static final int REFUSED = -1;

    /**
     * @param spec   how to answer
     * @param socket the bound socket (owned from now on); {@link #openSocket} gives the usual options
     * @param clock  timestamps and error estimate (null = the system clock with the kernel's state)
     */
    public StampReflector(StampReflectorSpec spec, UdpSocket socket, ReflectorClock clock) {
        this.spec = spec;
        this.socket = socket;
        this.clock = clock == null ? ReflectorClock.system() : clock;
        senderLayout = spec.light() ? StampLayouts.lightSender(spec.authenticated())
                : StampLayouts.sender(spec.authenticated());
        replyLayout = spec.light() ? StampLayouts.lightReflector(spec.authenticated())
                : StampLayouts.reflector(spec.authenticated());
        hasSsid = senderLayout.ssidOffset() != TestPacketLayout.ABSENT;
        lightMinimum = spec.light() || spec.strict() ? senderLayout.length()
                : StampLayouts.lightSender(spec.authenticated()).length();
        this.signer = new StampReplySigner(spec, senderLayout, replyLayout, MAX_DATAGRAM + 4);
        this.request = arena.allocate(MAX_DATAGRAM + 1, 16);
        this.reply = arena.allocate(MAX_DATAGRAM + replyLayout.length(), 16);
        // MAX_DATAGRAM + 1 bytes per slot: a longer datagram shows as truncated, as with the single receive
        this.batch = new DatagramBatch(BATCH, MAX_DATAGRAM + 1);
        this.in = new SenderPacket(senderLayout).wrap(request);
        this.out = new ReflectorPacket(replyLayout).wrap(reply);
        this.allowed = spec.allowed().toArray(new SourceNetwork[0]);
        this.peers = new PeerTable(spec.maxPeers());
        this.txStamps = new ReplyTxStamps(socket, peers);
        InetSocketAddress bound = socket.localAddress();
        InetAddress boundAddress = bound == null ? null : bound.getAddress();
        byte[] localAddressBytes = boundAddress == null || boundAddress.isAnyLocalAddress() ? null
                : AddressText.unmapped(boundAddress).getAddress();
        this.tlvs = new StampTlvResponder(spec, this.clock, socket, request, reply, signer, peers, txStamps, source,
                localAddressBytes, hostAddresses(), bound == null ? 0 : bound.getPort());
        this.runner = new ReflectorRunner("stamp-reflector-" + (bound == null ? 0 : bound.getPort()), socket,
                new Agent());
    }

    /** This host's interface addresses now (the Destination Node Address TLV's "local"); empty when unreadable. */
    private static byte[][] hostAddresses() {
        List<byte[]> addresses = new ArrayList<>();
        try {
            Enumeration<NetworkInterface> interfaces = NetworkInterface.getNetworkInterfaces();
            while (interfaces != null && interfaces.hasMoreElements()) {
                Enumeration<InetAddress> a = interfaces.nextElement().getInetAddresses();
                while (a.hasMoreElements()) {
                    addresses.add(AddressText.unmapped(a.nextElement()).getAddress());
                }
            }
        } catch (IOException e) {
            // none known: only the request's destination and the bound address count as local
        }
        return addresses.toArray(new byte[0][]);
    }

    /**
     * Opens a reflector socket on {@code bind}: the options of the TWAMP reflector
     * ({@link SessionReflector#socketOptions}: IP TTL 255 on replies, received TTL and TOS, kernel RX timestamps,
     * a {@value #RECEIVE_BUFFER_BYTES}-byte receive buffer), kernel TX timestamps for the Follow-Up Telemetry TLV (RFC 8972 §4.7) asked for per reply, only
     * for the sessions that sent that TLV ({@link io.github.twping.ffm.UdpSocketOptions#txTimestampsPerSend}: a
     * stamp costs the kernel a clone and an error-queue entry and the reflector the drain), and each request's
     * destination address for the Location and Destination Node Address TLVs.
     */
    public static UdpSocket openSocket(InetSocketAddress bind, int tos) throws SocketException {
        return UdpSocket.open(SessionReflector.socketOptions(bind, tos).receiveBufferBytes(RECEIVE_BUFFER_BYTES)
                .timestamping(Timestamping.RX_TX_SOFTWARE).txTimestampsPerSend(true).receiveDestination(true).build());
    }

    /** The receive buffer granted to the socket ({@link UdpSocket#receiveBufferBytes}), -1 when unknown. */
    public int receiveBufferBytes() {
        return socket.receiveBufferBytes();
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
        tlvs.ptpEvidence = evidence;
        return this;
    }

    /**
     * The TAI-UTC offset of the PTP-format timestamps this reflector writes ({@link TaiOffset}; 0 = unknown, PTP
     * seconds are then UTC seconds). Call before {@link #start}.
     */
    public StampReflector taiOffset(int taiSeconds) {
        this.taiSeconds = taiSeconds;
        tlvs.taiSeconds = taiSeconds;
        return this;
    }

    /** @return the TAI-UTC offset in force ({@link #taiOffset}) */
    public int taiOffset() {
        return taiSeconds;
    }

    /** Starts answering on a new platform thread; a second call does nothing. */
    public void start() {
        runner.start();
    }

    /** Asks the reflector thread to end (any thread). */
    public void stop() {
        runner.stop();
    }

    /** Waits up to {@code timeoutNs} for the thread to end; true if it ended or never started. */
    public boolean awaitEnd(long timeoutNs) throws InterruptedException {
        return runner.awaitEnd(timeoutNs);
    }

    /** The bound local address. */
    public InetSocketAddress localAddress() {
        return socket.localAddress();
    }

    /** The socket error that ended the reflector, or null. */
    public IOException failure() {
        return runner.failure();
    }

    @Override
    public void close() {
        runner.close();
    }

    /** The reflector's work on the runner's thread. */
    private final class Agent implements ReflectorRunner.Agent {
        @Override
        public boolean doWork() throws IOException {
            int n = socket.receiveBatch(batch, -1);
            if (n == UdpSocket.CLOSED) {
                return false;
            }
            handleBatch(batch, n);
            return true;
        }

        @Override
        public void release() {
            batch.close();
            arena.close();
        }
    }

    /**
     * The {@code n} datagrams of one receive call. A method of its own, not the body of a loop: a loop entered once
     * stays in the interpreter until on-stack replacement after tens of thousands of turns, whereas this is compiled
     * after a few thousand calls, which the start-up warm-up of another instance makes ({@link StampReflectorWarmUp}).
     */
    private void handleBatch(DatagramBatch batch, int n) throws IOException {
        for (int i = 0; i < n && !runner.stopRequested(); i++) {
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
            if (n < lightMinimum) {
                shortPackets++;
                return;
            }
            n = zeroFill(n);
        }
        int addressLength = meta.sourceAddressLength();
        meta.sourceAddressBytes(source, 0);
        int port = meta.sourcePort();
        int ssid = hasSsid ? in.ssid() : 0;
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
            destination = peers.address[peer];            // inserted only after the allow-list admitted it
        }
        if (peer >= 0 && spec.ratePerSource() > 0 && !peers.take(peer, System.nanoTime(), spec.ratePerSource())) {
            rateLimited++;
            return;
        }
        if (!signer.verifyRequest(request, n)) {
            badHmac++;
            return;
        }
        long rxEpochNs = meta.rxTimestampEpochNs();
        long receivedEpochNs = clock.adjustEpochNs(rxEpochNs > 0 ? rxEpochNs : clock.nowEpochNs());
        long receiveWire = spec.format().fromEpochNanos(receivedEpochNs, taiSeconds);
        int replyLength = replyLength(n);
        long senderSeq = in.sequenceNumber();
        long seq = spec.stateful() && peer >= 0 ? peers.next(peer) : senderSeq;
        int ttl = meta.ttl();
        out.clearMbz().sequenceNumber(seq).receiveTimestampNtp(receiveWire)
                .senderSequenceNumber(senderSeq)
                .senderTimestampNtp(in.timestampNtp())
                .senderErrorEstimate(in.errorEstimate())
                .senderTtl(ttl < 0 ? 255 : ttl);
        if (hasSsid) {
            out.ssid(ssid);
        }
        if (peer >= 0) {
            peers.rxCount[peer]++;
        }
        peers.totalRx++;
        tlvs.begin();
        int tail = replyLength - replyLayout.length();
        if (tail > 0) {
            MemorySegment.copy(request, senderLayout.length(), reply, replyLayout.length(), tail);
            if (!spec.light() && !tlvs.process(replyLayout.length(), replyLength, peer, meta)) {
                suppressed++;
                return;                                   // no reply asked for, or another member link's packet
            }
        }
        tlvs.applyReplyTos();
        signer.signTlvs(reply, tlvs.hmacTlvAt());
        // a kernel TX stamp only for the replies of a session that asked for Follow-Up Telemetry (RFC 8972 §4.7)
        boolean stamp = peer >= 0 && peers.followUp[peer] && !stampedSendsRefused;
        for (int attempt = 0; attempt < SendRetry.ATTEMPTS; attempt++) {
            long sendEpochNs = clock.nowEpochNs();
            out.timestampNtp(spec.format().fromEpochNanos(sendEpochNs, taiSeconds))
                    .errorEstimate(spec.format().markErrorEstimate(clock.errorEstimate()));
            signer.seal(reply, attempt, seq);
            long packetId = stamp ? socket.txStampId() : -1;
            int sent = stamp ? sendStamped(replyLength, destination) : REFUSED;
            if (sent == REFUSED) {
                stamp = false;
                sent = socket.send(reply, replyLength, destination);
            }
            if (sent > 0) {
                processingTimeNs.accept(sendEpochNs - receivedEpochNs); // before the count: reflected() covers it
                reflected++;
                peers.totalTx++;
                if (peer >= 0) {
                    peers.txCount[peer]++;
                }
                if (stamp) {
                    peers.lastSentId[peer] = packetId;
                }
                txStamps.sent(packetId, stamp ? peer : -1, seq);
                return;
            }
            sendRetries++;
            SendRetry.pause();
            if (runner.stopRequested()) {
                return;
            }
        }
    }

    /**
     * {@link UdpSocket#sendStamped}, or {@link #REFUSED} when the kernel refuses the SO_TIMESTAMPING control message
     * with EINVAL: kernels before 4.7 take none on sendmsg. The reflector then sends every reply unstamped from now
     * on (one refused send, no retry per reply), its Follow-Up Telemetry TLVs report no stamp (all zero, as for a
     * session's first reply), and {@link #stampedSendsRefusal} tells the daemon, which says so once.
     */
    private int sendStamped(int replyLength, InetSocketAddress destination) throws SocketException {
        try {
            return socket.sendStamped(reply, replyLength, destination);
        } catch (SocketException e) {
            if (e.errno() != EINVAL) {
                throw e;
            }
            stampedSendsRefused = true;
            stampedSendsRefusal = e;
            return REFUSED;
        }
    }

    /**
     * The error of the stamped send the kernel refused (EINVAL: a kernel before 4.7), after which the replies of
     * Follow-Up Telemetry sessions are sent unstamped; null while none was refused. Any thread.
     */
    public SocketException stampedSendsRefusal() {
        return stampedSendsRefusal;
    }

    /**
     * A request shorter than the STAMP base packet from a TWAMP-Light sender (RFC 8762 §4.6): zero-filled up to the
     * base packet, which is then what the reply has. @return the base packet's length
     */
    private int zeroFill(int n) {
        for (int i = n; i < senderLayout.length(); i++) {
            request.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
        }
        zeroFilled++;
        return senderLayout.length();
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
        return runner.kernelDrops();
    }

    /**
     * STAMP requests shorter than the base packet answered with a base packet, zero-filled (RFC 8762 §4.6: TWAMP-Light
     * senders); none with {@link StampReflectorSpec#strict()}.
     */
    public long zeroFilled() {
        return zeroFilled;
    }

    /**
     * Datagrams too short to answer (dropped): shorter than a TWAMP-Light request (14 octets, 48 authenticated) for
     * STAMP, than the base packet with {@link StampReflectorSpec#strict()} and for TWAMP-Light.
     */
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

    /** Datagrams from sources outside the allow-list (dropped; checked when a source is first seen). */
    public long notAllowed() {
        return notAllowed;
    }

    /** Datagrams over a source's rate limit (dropped). */
    public long rateLimited() {
        return rateLimited;
    }

    /** TLVs reflected with the M flag (or trailing bytes too short for a TLV header). */
    public long malformedTlvs() {
        return tlvs.malformedTlvs;
    }

    /** TLVs reflected with the U flag. */
    public long unknownTlvs() {
        return tlvs.unknownTlvs;
    }

    /** Packets of new sources answered without a table entry because the table was full. */
    public long tableFull() {
        return tableFull;
    }

    /** HMAC TLVs that did not verify (reflected with the I flag, RFC 8972 §4.8). */
    public long badTlvHmac() {
        return tlvs.badTlvHmac;
    }

    /** Follow-Up Telemetry TLVs answered with a kernel TX stamp of the session's previous reply. */
    public long followUpsReported() {
        return tlvs.followUpsReported;
    }

    /** Kernel TX stamps of replies matched to their session. */
    public long txStampsMatched() {
        return txStamps.matched();
    }

    /** Replies sent with the DSCP a Class of Service TLV asked for. */
    public long classOfServiceApplied() {
        return tlvs.classOfServiceApplied;
    }

    /** Class of Service requests whose DSCP could not be set on the socket (RP = 1 in the reply). */
    public long classOfServiceRefused() {
        return tlvs.classOfServiceRefused;
    }

    /** Access Report TLVs received (RFC 8972 §4.6). */
    public long accessReports() {
        return tlvs.accessReports;
    }

    /** The last Access Report's first two octets (ID, Reserved, Return Code), or -1; any thread. */
    public int lastAccessReport() {
        return tlvs.lastAccessReport;
    }

    /**
     * Requests answered with no reply on purpose: a Return Path Control Code "No Reply Requested" (RFC 9503
     * §4.1.1) or a Micro-session ID naming another member link (RFC 9534 §3.2).
     */
    public long suppressed() {
        return suppressed;
    }

    /** Destination Node Address TLVs naming an address not of this host (U set, RFC 9503 §3). */
    public long destinationNotLocal() {
        return tlvs.destinationNotLocal;
    }

    /** Return Path TLVs asking for no reply (RFC 9503 §4.1.1). */
    public long returnPathNoReply() {
        return tlvs.returnPathNoReply;
    }

    /** First Return Path TLVs this reflector could not follow (U or M set: the reply took the ordinary path). */
    public long returnPathNotUsed() {
        return tlvs.returnPathNotUsed;
    }

    /** Requests discarded because their Micro-session ID named another member link (RFC 9534 §3.2). */
    public long microSessionMismatch() {
        return tlvs.microSessionMismatch;
    }

    /** Sends the kernel refused (EAGAIN/ENOBUFS) and that were retried. */
    public long sendRetries() {
        return sendRetries;
    }

    /** Error-queue drains made (package-private, for tests). */
    long txDrains() {
        return txStamps.drains();
    }

    /** Package-private hooks for the fuzz test: the receive buffer and metadata {@link #handle} reads. */
    MemorySegment requestBuffer() {
        return request;
    }

    ReceivedPacket metadata() {
        return meta;
    }
}
