package io.github.twping.session;

import io.github.twping.ffm.DatagramBatch;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.ThreadTuning;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.BitSet;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import io.github.twping.ffm.AddressInUseException;
import java.util.function.LongConsumer;

/**
 * The Session-Reflector of one TWAMP-Test session (RFC 5357 §4.2): on its own platform thread it receives sender
 * packets, keeps only those from the session's sender address and port whose HMAC verifies, and answers
 * each with a reply stamped with the receive time and, as late as possible, the send time.
 *
 * <p>Lifecycle: the socket is bound before Accept-Session (datagrams queue in the kernel); {@link #start()} on
 * Start-Sessions; {@link #stop()} on Stop-Sessions or when the control connection ends; the session also ends
 * after {@code refwaitNs} without any datagram (REFWAIT). {@link #close()} releases the socket and keys.
 * Buffers, cipher state and counters are allocated here, at set-up; the per-packet path allocates nothing
 * (apart from what the NIO fallback socket does inside the JDK).
 *
 * <p>The socket is an {@code ffm} {@link UdpSocket} opened with {@link #socketOptions}: kernel RX timestamps, the
 * received TTL and TOS, IP TTL 255 and the requested TOS on replies. Deliberate misbehaviour for tests and the
 * stand is a socket decorator ({@link FaultInjectingSocket}); the reflector itself has no fault checks.
 */
public final class SessionReflector implements AutoCloseable {
    /** The warning logged for every sender packet whose HMAC does not verify (same text as C twampd). */
    public static final String INVALID_HMAC_MESSAGE = "run_reflector: Invalid HMAC on received packet: ignoring";
    /** The message for the REFWAIT timeout (same text as C twampd). */
    public static final String REFWAIT_MESSAGE = "run_reflector: Exiting due to REFWAIT timeout";

    /** IP TTL / hop limit of reflected packets (C twampd). */
    public static final int REPLY_TTL = 255;
    /**
     * Socket buffers asked for: the request does not carry the sender's rate (RFC 5357 §3.5 has no schedule),
     * so enough for about 0.3 s at 50,000 small packets/s (~1.1 KB of kernel memory each on loopback). Memory
     * is charged only for datagrams actually queued. Above net.core.rmem_max only with CAP_NET_ADMIN.
     */
    static final int SOCKET_BUFFER_BYTES = 16 << 20;


    /** Why the reflector stopped. */
    public enum EndReason {
        /** Not started or still running. */
        NONE,
        /** {@link #stop()} was called (Stop-Sessions, control connection closed, shutdown). */
        STOPPED,
        /** No datagram within REFWAIT ({@code testtimeout}). */
        REFWAIT_TIMEOUT,
        /** A socket error ended the session. */
        SOCKET_ERROR
    }

    private final ReflectorSessionSpec spec;
    private final UdpSocket socket;
    /** Datagrams taken per receive call at most. */
    private static final int BATCH = 32;
    private final DatagramBatch batch;
    private final ReflectorFormat format;
    private final ReflectorClock clock;
    private final Consumer<String> warnings;
    private final Arena arena;
    private final MemorySegment request;
    private final MemorySegment wire;
    private final int expectedLength;
    private final int replyLength;
    private final int replyPaddingLength;
    private final InetSocketAddress sender;

    /** The thread: start, stop by wakeup, bounded join, close, failure, kernel drops. */
    private final ReflectorRunner runner;
    private final long timeoutNs;
    private EndReason reason = EndReason.STOPPED;
    private volatile EndReason endReason = EndReason.NONE;
    private Consumer<SessionReflector> onEnd;
    private LongConsumer processingTimeNs = ns -> { };
    private long lastRxEpochNs;

    // counters: written by the reflector thread only; read after awaitEnd()
    private long reflectorSeq;
    private long acceptedPackets;
    private int lastReceivedDscp = -1;
    private long repliesSent;
    private long ignoredForeign;
    private long badHmac;
    private long shortPackets;
    private long sendRetries;
    private ReflectorWait waitStrategy = ReflectorWait.DEFAULT;
    private BitSet cpus;
    private int rtPriority;
    private final BooleanSupplier stopCheck;

    /**
     * @param spec     the session
     * @param socket   the bound reflector socket (owned by this reflector from now on)
     * @param clock    the wall clock for the reflector's timestamps and error estimate (confined to the reflector
     *                 thread; null = a new {@link ReflectorEpochClock})
     * @param warnings receives the per-packet warning lines (bad HMAC) when verbose logging is on; may be null
     */
    public SessionReflector(ReflectorSessionSpec spec, UdpSocket socket, ReflectorClock clock,
            Consumer<String> warnings) {
        this.spec = spec;
        this.socket = socket;
        this.clock = clock == null ? ReflectorClock.system() : clock;
        this.warnings = warnings;
        this.sender = spec.sender();
        this.format = ReflectorFormat.forMode(spec.mode(), spec.keys());
        this.expectedLength = format.senderHeaderLength() + spec.paddingLength();
        this.replyLength = Math.max(expectedLength, format.replyHeaderLength());
        this.replyPaddingLength = replyLength - format.replyHeaderLength();
        this.arena = Arena.ofShared();
        int requestCapacity = format.senderHeaderLength() + Math.max(spec.paddingLength(), replyPaddingLength);
        this.request = arena.allocate(requestCapacity, 16);
        // slots of exactly the expected length: a longer datagram is truncated to it, as the single receive into
        // the request window did
        this.batch = new DatagramBatch(BATCH, expectedLength);
        this.wire = arena.allocate(replyLength, 16);
        format.bind(wire);
        this.timeoutNs = spec.refwaitNs() == 0 ? -1 : spec.refwaitNs();
        this.runner = new ReflectorRunner("reflector-" + socket.localAddress().getPort(), socket, new Agent());
        this.stopCheck = runner::stopRequested;
    }

    /**
     * The options of a reflector socket bound on exactly {@code bind} (address and port; port 0 = ephemeral):
     * IP TTL 255 on replies, received TTL and TOS, kernel RX timestamps, 4 MiB buffers.
     *
     * @param tos the TOS / traffic class byte of the replies (DSCP &lt;&lt; 2); 0 leaves the system default
     */
    public static UdpSocketOptions.Builder socketOptions(InetSocketAddress bind, int tos) {
        return socketOptions(bind, tos, true);
    }

    /**
     * As {@link #socketOptions(InetSocketAddress, int)}; {@code kernelRxStamps} false takes the receive time
     * from the clock after the receive call returned instead (no RX timestamping), as C twampd does: the
     * thread's wake-up then counts in the forward leg instead of the processing time.
     */
    public static UdpSocketOptions.Builder socketOptions(InetSocketAddress bind, int tos, boolean kernelRxStamps) {
        UdpSocketOptions.Builder b = UdpSocketOptions.builder()
                .bindAddress(bind.getAddress())
                .port(bind.getPort())
                .unicastTtl(REPLY_TTL)
                .receiveTtl(true)
                .receiveTos(true)
                // A burst of a late sender at 20,000 packets/s overflows the 208 KiB default in ~10 ms
                // (docs/PERFORMANCE.md, high rate); the kernel caps this at net.core.rmem_max.
                .receiveBufferBytes(SOCKET_BUFFER_BYTES)
                .sendBufferBytes(SOCKET_BUFFER_BYTES)
                .timestamping(kernelRxStamps ? Timestamping.RX_SOFTWARE : Timestamping.NONE);
        if (tos != 0) {
            b.tos(tos);
        }
        return b;
    }

    /**
     * Opens a reflector socket with {@link #socketOptions} (FFM where available, else the NIO fallback).
     *
     * @throws AddressInUseException when the port is taken
     */
    public static UdpSocket openSocket(InetSocketAddress bind, int tos) throws SocketException {
        return openSocket(bind, tos, true);
    }

    /** As {@link #openSocket(InetSocketAddress, int)} with the receive stamp chosen (see {@link #socketOptions(InetSocketAddress, int, boolean)}). */
    public static UdpSocket openSocket(InetSocketAddress bind, int tos, boolean kernelRxStamps) throws SocketException {
        return UdpSocket.open(socketOptions(bind, tos, kernelRxStamps).build());
    }

    /** Registers a callback run on the reflector thread when the session ends (before the socket is closed). */
    public SessionReflector onEnd(Consumer<SessionReflector> callback) {
        this.onEnd = callback;
        return this;
    }

    /**
     * Receives each reflected packet's processing time in ns (receive stamp to the reply's send stamp) on the
     * reflector thread; must not allocate or block. Set before {@link #start()}.
     */
    public SessionReflector processingTime(LongConsumer consumer) {
        this.processingTimeNs = consumer;
        return this;
    }

    /** How the thread waits for sender packets (default {@link ReflectorWait#DEFAULT}); set before {@link #start()}. */
    public SessionReflector waitStrategy(ReflectorWait wait) {
        this.waitStrategy = Objects.requireNonNull(wait, "wait");
        return this;
    }

    /** Pins the reflector thread to {@code cpus} when it starts (null: no pinning); set before {@link #start()}. */
    public SessionReflector cpus(BitSet cpus) {
        this.cpus = cpus == null ? null : (BitSet) cpus.clone();
        return this;
    }

    /**
     * Runs the reflector thread under SCHED_FIFO at {@code priority} (1..99; 0 = the default scheduler); call
     * before {@link #start()}. Its wake-up then preempts time-shared threads, which shortens the processing time
     * when a client or other work shares the CPU. A refusal by the kernel ends the session as a socket error with
     * the errno, as a failed {@code --cpu} does (twampd checks the permission when it starts).
     */
    public SessionReflector rtPriority(int priority) {
        if (priority < 0 || priority > 99) {
            throw new IllegalArgumentException("SCHED_FIFO priority must be 0..99: " + priority);
        }
        this.rtPriority = priority;
        return this;
    }

    /** The wait strategy in use. */
    public ReflectorWait waitStrategy() {
        return waitStrategy;
    }

    /**
     * Sender packets the kernel dropped at this reflector's socket because its receive buffer was full (loss in
     * this host, not in the network), read when the session ended; -1 when unknown or still running.
     */
    public long kernelDrops() {
        return runner.kernelDrops();
    }

    /** Starts reflecting on a new platform thread; a second call does nothing. */
    public void start() {
        runner.start();
    }

    /** Asks the reflector to stop now (Stop-Sessions semantics of C twampd: no grace period). */
    public void stop() {
        runner.stop();
    }

    /** Waits up to {@code timeoutNs} for the reflector thread to end; true if it ended (or never started). */
    public boolean awaitEnd(long timeoutNs) throws InterruptedException {
        return runner.awaitEnd(timeoutNs);
    }

    /** The reflector thread's id, or -1 before {@link #start()} (allocation checks in tests). */
    long threadId() {
        return runner.threadId();
    }

    /** Whether {@link #start()} was called and the thread has not finished. */
    public boolean isRunning() {
        return runner.isRunning();
    }

    /** Stops the reflector if running, waits for it (bounded), then closes the socket and frees the buffers. */
    @Override
    public void close() {
        runner.close();
    }

    /** The session's work on the runner's thread. */
    private final class Agent implements ReflectorRunner.Agent {
        @Override
        public void onStart() throws IOException {
            if (cpus != null && ThreadTuning.available()) {
                ThreadTuning.pinCurrentThread(cpus);
            }
            if (rtPriority > 0 && ThreadTuning.available()) {
                ThreadTuning.fifoPriority(rtPriority);
            }
        }

        @Override
        public boolean doWork() throws IOException {
            EndReason end = serveOnce(timeoutNs);
            if (end != null) {
                reason = end;
                return false;
            }
            return true;
        }

        @Override
        public void onEnd() {
            EndReason r = runner.failure() != null ? EndReason.SOCKET_ERROR : reason;
            endReason = r;
            Consumer<SessionReflector> callback = onEnd;
            if (callback != null) {
                callback.accept(SessionReflector.this);
            }
            if (r == EndReason.REFWAIT_TIMEOUT) {
                socket.close(); // free the test port now, as C does, not when the control connection ends
            }
        }

        @Override
        public void release() {
            arena.close();
            batch.close();
        }
    }

    /**
     * One receive and the replies to what it brought; null to go on. A method of its own so that it is
     * compiled by its calls (the engine warm-up makes them): as the body of a loop entered once per session,
     * the step from the receive's return to the reply would run in the interpreter (docs/PERFORMANCE.md).
     */
    private EndReason serveOnce(long timeoutNs) throws IOException {
        // One recvmmsg takes every datagram already queued (up to BATCH): a reflector that fell behind
        // (a preemption, a burst) catches up at a fraction of a system call per packet instead of
        // overflowing its socket. At low rates a batch holds one datagram, as a plain receive would.
        int n = waitStrategy.receiveBatch(socket, batch, timeoutNs, stopCheck);
        if (n == UdpSocket.CLOSED) {
            return EndReason.STOPPED;
        }
        if (n == UdpSocket.TIMEOUT) {
            return runner.stopRequested() ? EndReason.STOPPED : EndReason.REFWAIT_TIMEOUT;
        }
        for (int i = 0; i < n; i++) {
            if (!reflect(batch.buffer(i), batch.length(i), batch.meta(i))) {
                return EndReason.STOPPED;
            }
        }
        return null;
    }

    /**
     * Answers one received datagram; false when stopped meanwhile. The datagram is copied into the request
     * buffer, whose bytes beyond a short datagram keep the previous request's contents (a C quirk kept on
     * purpose, docs/PROTOCOL.md).
     */
    private boolean reflect(MemorySegment datagram, int n, ReceivedPacket meta) throws IOException {
        lastRxEpochNs = clock.adjustEpochNs(meta.rxTimestampEpochNs());
        long receiveNtp = ReflectorClock.toNtp(lastRxEpochNs);
        if (!meta.sourceIs(sender)) {
            ignoredForeign++;
            return true;
        }
        if (n < expectedLength) {
            shortPackets++; // C quirk: still processed, missing bytes keep old contents
        }
        MemorySegment.copy(datagram, 0, request, 0, Math.min(n, expectedLength));
        if (!format.openRequest(request, expectedLength)) {
            badHmac++;
            if (warnings != null) {
                warnings.accept(INVALID_HMAC_MESSAGE);
            }
            return true;
        }
        acceptedPackets++;
        int tos = meta.tos();
        if (tos >= 0) {
            lastReceivedDscp = tos >>> 2;
        }
        int ttl = meta.ttl();
        int senderTtl = ttl < 0 ? 255 : ttl;
        format.buildReply(request, reflectorSeq, receiveNtp, senderTtl);
        if (replyPaddingLength > 0) {
            MemorySegment.copy(request, format.senderHeaderLength(), wire, format.replyHeaderLength(), replyPaddingLength);
        }
        boolean running = sendReply(reflectorSeq, receiveNtp, senderTtl);
        reflectorSeq++;
        return running;
    }

    /**
     * Stamps, seals and sends the built reply; false if stopped meanwhile. A send the kernel refuses
     * (EAGAIN/ENOBUFS) is retried with the reply rebuilt (sealing works in place) and a fresh timestamp.
     */
    private boolean sendReply(long seq, long receiveNtp, int senderTtl) throws IOException {
        for (int attempt = 0; attempt < SendRetry.ATTEMPTS; attempt++) {
            if (attempt > 0) {
                format.buildReply(request, seq, receiveNtp, senderTtl);
            }
            long stampEpochNs = clock.nowEpochNs();
            format.stampAndSeal(ReflectorClock.toNtp(stampEpochNs), clock.errorEstimate());
            if (socket.send(wire, replyLength, sender) > 0) {
                repliesSent++;
                processingTimeNs.accept(stampEpochNs - lastRxEpochNs);
                return true;
            }
            sendRetries++;
            SendRetry.pause(); // ENOBUFS/EAGAIN: retry with a new timestamp
            if (runner.stopRequested()) {
                return false;
            }
        }
        return true;
    }

    /** The session this reflector serves. */
    public ReflectorSessionSpec spec() {
        return spec;
    }

    /** Local address of the reflector socket (the port sent in Accept-Session). */
    public InetSocketAddress localAddress() {
        return socket.localAddress();
    }

    /** The expected request length Lq. */
    public int expectedRequestLength() {
        return expectedLength;
    }

    /** The reply length Lr = max(Lq, 41 or 112). */
    public int replyLength() {
        return replyLength;
    }

    public EndReason endReason() {
        return endReason;
    }

    /** The socket error that ended the session, or null. */
    public IOException failure() {
        return runner.failure();
    }

    /** DSCP of the last accepted sender packet as received (shows remarking on the path), or -1 if unknown. */
    public int lastReceivedDscp() {
        return lastReceivedDscp;
    }

    /** Sender packets accepted and answered (one per reply sequence number). */
    public long reflected() {
        return acceptedPackets;
    }

    /** Replies the socket accepted (a fault-injecting socket counts its own drops and duplicates). */
    public long repliesSent() {
        return repliesSent;
    }

    /** Datagrams ignored because they did not come from the session's sender address and port. */
    public long ignoredForeign() {
        return ignoredForeign;
    }

    /** Datagrams ignored because their HMAC did not verify. */
    public long badHmac() {
        return badHmac;
    }

    /** Datagrams shorter than Lq (still answered, as C does). */
    public long shortPackets() {
        return shortPackets;
    }

    /** Sends the kernel refused (EAGAIN/ENOBUFS) and that were retried. */
    public long sendRetries() {
        return sendRetries;
    }
}
