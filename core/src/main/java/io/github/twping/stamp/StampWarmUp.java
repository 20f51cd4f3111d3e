package io.github.twping.stamp;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.protocol.Mode;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.session.SplitTestSocket;
import io.github.twping.session.TwampSessionWarmUp;
import java.lang.foreign.Arena;
import java.time.Duration;

/**
 * Compiles the STAMP and TWAMP-Light code before a measurement, as {@code session.TwampSessionWarmUp} does for TWAMP, with
 * the real classes between loopback sockets.
 *
 * <p>Two uses (docs/STAMP.md, "Warm-up"):
 * <ul>
 *   <li>{@link #reflector}: {@code twampd --stamp/--light} before it announces itself ready: an in-process
 *       {@link StampReflector} of the configured spec (stateless or stateful, open or authenticated, the reply size
 *       options) answers requests sealed by the sender codecs and sent in bursts of 1 to 8 ({@link #drive}); for
 *       STAMP one phase with every RFC 8972 TLV the reflector answers (Follow-Up Telemetry included, so the
 *       TX-stamp drain of the error queue runs; the HMAC TLV when authenticated) and one phase without TLVs, so
 *       that neither kind of request is left to the first real session.</li>
 *   <li>{@link #beforeSession}: {@code twping --stamp/--light} while the start time approaches: a throw-away
 *       session of the engine ({@link StampSenderSession}'s sender, receiver and data-file writer) with the sender
 *       of the session that follows against a matching reflector, on a schedule that exercises the pacer's spin
 *       and its sleep; stopped {@link #SENDER_MARGIN_NS} before the start time, and the session's threads are
 *       started by then whatever the warm-up does ({@link SenderWarmUp#awaitStart}).</li>
 * </ul>
 *
 * <p>Loopback only (127.0.0.1, or ::1 for an IPv6 peer); bounded by a packet count and a time; any failure ends it
 * quietly: it is an optimisation, never a reason for a run to fail. The in-process reflector answers every source
 * (the configured allow-list and rate limit would refuse loopback or throttle the warm-up) and has no metrics hook.
 */
public final class StampWarmUp {
    /** Packets per warm-up: above C2's invocation threshold (5,000) for the per-packet methods, as TwampSessionWarmUp. */
    public static final long DEFAULT_PACKETS = 8_000;
    /** Longest reflector warm-up at {@code twampd} start-up (it delays the ready line by about this much at most). */
    public static final long REFLECTOR_MAX_NS = TimeUnit.SECONDS.toNanos(3);
    /** Longest sender warm-up in {@code twping}. */
    public static final long SENDER_MAX_NS = TimeUnit.MILLISECONDS.toNanos(1500);
    /** The sender warm-up is stopped this long before the start time, and the session's threads start then. */
    public static final long SENDER_MARGIN_NS = TimeUnit.MILLISECONDS.toNanos(150);
    /** The session's threads are started at the latest this long before the start time, warm-up ended or not. */
    static final long START_LATEST_NS = TimeUnit.MILLISECONDS.toNanos(50);

    /** Five packets 20 µs apart, then a gap longer than the pacer's spin window: 66.7 µs on average. */
    private static final ScheduleSlot[] SLOTS = TwampSessionWarmUp.slots(
            NtpTime.fromSeconds(0.00002), 5, NtpTime.fromSeconds(0.0003));
    /**
     * The reflector warm-up sends from a new source port every this many bursts, about 40 times per phase: with one
     * source the peer table's miss was seen twice, before the profiles C2 compiles with, C2 left it out, and the
     * first packet of the first real session (a new source) deoptimised the reflector's per-datagram method
     * ({@code -Xlog:deoptimization}: an unstable_if trap in {@code PeerTable.find}), which then ran in C1 code
     * until C2 had compiled it again, during that session.
     */
    private static final int NEW_SOURCE_EVERY = 64;
    /** The in-process reflector's peer table in the reflector warm-up: room for every source it sees. */
    private static final int DRIVE_PEERS = 1024;
    /** Largest burst of the reflector warm-up, and how long it waits for a burst's replies. */
    private static final int MAX_BURST = 8;
    private static final long BURST_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * Packets of the reflector warm-up ({@link #reflector} in {@code twampd}): with 8,000 (at 66.7 µs) the
     * reflector's per-datagram method reached only the C1 tiers, and C2 compiled it during the first real session;
     * the C2 thresholds grow with the compile queue, which is long at start-up.
     */
    public static final long REFLECTOR_PACKETS = 3 * DEFAULT_PACKETS;
    /** The first slot's distance from the start of the session's construction. */
    private static final long START_DELAY_NTP = NtpTime.fromSeconds(0.02);
    /** Sessions built per phase at most (see {@link #session}). */
    private static final int BUILD_ATTEMPTS = 3;
    /** Packets per warm-up at most, whatever is asked: the session's per-packet arrays stay small. */
    static final long MAX_PACKETS = 100_000;
    /**
     * Long enough that a sender still in the interpreter (the first packets of a JVM's first session run tens of ms
     * late) sends its packets late instead of skipping them (a packet more than the loss timeout behind its slot is
     * skipped); a stop does not wait for it, and the in-process reflector answers every packet within µs.
     */
    private static final long LOSS_TIMEOUT_NTP = NtpTime.fromSeconds(0.5);
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long JOIN_MS = 300;
    private static final int WARM_UP_PEERS = 16;
    /** SSID of the TLV phase: a stateful reflector keeps it apart from the other phase's session. */
    private static final int WARM_UP_SSID = 0x5757;

    /**
     * What a warm-up did.
     *
     * @param packets   sequence numbers the senders handled (sent or skipped; the last attempt of each phase)
     * @param reflected replies the in-process reflector sent
     * @param followUps of those, replies whose Follow-Up Telemetry TLV carried a kernel TX stamp read from the
     *                  reflector socket's error queue
     * @param elapsedNs how long it took
     * @param completed every phase ran all its packets
     * @param sockets   the senders' sockets: 2 when a receiving and a sending socket ran as one split test socket
     *                  (kernel TX stamps), 1 for one socket, 0 for the reflector's warm-up or none run
     */
    public record Result(long packets, long reflected, long followUps, long elapsedNs, boolean completed, int sockets) {
        static final Result NONE = new Result(0, 0, 0, 0, false, 0);
    }

    /**
     * The sender of a warm-up session: STAMP ({@code stamp} not null, with the telemetry of the session that follows
     * when it reads TLVs) or TWAMP-Light ({@code lightPadding} octets, authenticated with {@code lightKey} when not
     * null).
     */
    public record Sender(StampSenderSpec stamp, boolean telemetry, int lightPadding, byte[] lightKey) {
        /** A STAMP sender of {@code spec}; {@code telemetry}: the replies' TLVs are read as the session does. */
        public static Sender stamp(StampSenderSpec spec, boolean telemetry) {
            return new Sender(spec, telemetry, 0, null);
        }

        /** A TWAMP-Light sender. */
        public static Sender light(int padding, byte[] key) {
            return new Sender(null, false, padding, key);
        }

        /** The in-process reflector this sender is answered by: stateless, NTP, everyone allowed. */
        StampReflectorSpec reflectorSpec() {
            if (stamp == null) {
                return new StampReflectorSpec(true, lightKey != null, lightKey, false, TimestampFormat.NTP, List.of(),
                        0, WARM_UP_PEERS);
            }
            return new StampReflectorSpec(false, stamp.authenticated(), stamp.key(), false, TimestampFormat.NTP,
                    List.of(), 0, WARM_UP_PEERS);
        }
    }

    private StampWarmUp() {
    }

    /**
     * Warms the reflector of {@code spec} on the calling thread: up to {@code packets} packets for at most
     * {@code maxNs} or until {@code stop} returns true (checked every 10 ms), from loopback senders of the address
     * family of {@code family} (null: IPv4).
     */
    public static Result reflector(StampReflectorSpec spec, InetAddress family, long packets, long maxNs,
                                   BooleanSupplier stop) {
        StampReflectorSpec local = new StampReflectorSpec(spec.light(), spec.authenticated(), spec.key(),
                spec.stateful(), spec.format(), List.of(), 0, DRIVE_PEERS, spec.asymmetric(), spec.reflectOctets());
        Sender[] phases;
        if (spec.light()) {
            phases = new Sender[] {Sender.light(0, spec.authenticated() ? spec.key() : null)};
        } else {
            StampTlvRequest all = new StampTlvRequest(true, 0, true, 1, 0, true, spec.authenticated(), true);
            // without TLVs first: a fresh reflector's first replies (no reply TOS set yet) are then in the profiles
            // C2 compiles with; after a Class of Service TLV they take another branch (an unstable_if trap in
            // applyReplyTos deoptimised the first real session's reflector when the TLV phase came first)
            phases = new Sender[] {
                Sender.stamp(new StampSenderSpec(spec.authenticated(), spec.key(), spec.format(), 0, 0), false),
                Sender.stamp(new StampSenderSpec(spec.authenticated(), spec.key(), spec.format(), WARM_UP_SSID, 16,
                        all), true)};
        }
        return drive(local, phases, loopback(family), packets, maxNs, stop);
    }

    /**
     * The reflector warm-up: {@code phases} one after the other against one in-process reflector of
     * {@code reflectorSpec}, the packets shared between them, each phase's requests sealed by its sender's codec
     * (sequence number, timestamp, TLV headers, HMAC) and sent from one loopback socket on the calling thread in
     * bursts of 1 to 8 (so that the reflector's receive batches have every size up to 8), each burst's replies
     * awaited for at most 200 ms. Cheaper per packet than a paced session, which left the reflector's per-datagram
     * method to C2 during the first real session ({@code -XX:+PrintCompilation}, docs/STAMP.md, "Warm-up").
     * Package-private for the tests.
     */
    static Result drive(StampReflectorSpec reflectorSpec, Sender[] phases, InetAddress loopback, long packets,
                        long maxNs, BooleanSupplier stop) {
        long startNs = System.nanoTime();
        if (loopback == null) {
            return Result.NONE;
        }
        packets = Math.min(packets, MAX_PACKETS);
        long sent = 0;
        long reflected = 0;
        long followUps = 0;
        boolean completed = true;
        UdpSocketOptions options = UdpSocketOptions.builder().bindAddress(loopback).unicastTtl(255)
                .receiveBufferBytes(1 << 20).sendBufferBytes(1 << 20).build();
        try (StampReflector reflector = new StampReflector(reflectorSpec,
                StampReflector.openSocket(new InetSocketAddress(loopback, 0), 0), null);
             SourceSocket client = new SourceSocket(options);
             Arena arena = Arena.ofConfined()) {
            reflector.start();
            InetSocketAddress target = reflector.localAddress();
            MemorySegment reply = arena.allocate(StampReflector.MAX_DATAGRAM + 1, 16);
            ReceivedPacket meta = new ReceivedPacket();
            WallClock clock = WallClock.system();
            long perPhase = Math.max(1, packets / phases.length);
            int burst = 1;
            long bursts = 0;
            outer:
            for (Sender sender : phases) {
                TestPacketCipher cipher = sender.stamp() != null
                        ? new StampSenderCodec(sender.stamp())
                        : TestPacketCipher.forMode(sender.lightKey() != null
                        ? Mode.AUTHENTICATED : Mode.OPEN,
                        sender.lightKey() != null ? StampReflectorSpec.lightKeys(sender.lightKey()) : null);
                int padding = sender.stamp() != null ? sender.stamp().tlvBytes() : sender.lightPadding();
                int length = cipher.senderLayout().packetLength(padding);
                MemorySegment packet = arena.allocate(Math.max(length, 128), 16);
                SenderPacket fields = new SenderPacket(
                        cipher.senderLayout()).wrap(packet);
                for (long seq = 0; seq < perPhase; ) {
                    if (stop.getAsBoolean() || System.nanoTime() - startNs >= maxNs) {
                        completed = false;
                        break outer;
                    }
                    int n = (int) Math.min(burst, perPhase - seq);
                    for (int i = 0; i < n; i++, seq++) {
                        fields.clearMbz().sequenceNumber(seq);
                        cipher.sealSenderHead(packet);
                        fields.timestampNtp(clock.nowNtp()).errorEstimate(1);
                        cipher.sealSenderTail(packet);
                        client.send(packet, length, target);
                        sent++;
                    }
                    long deadline = System.nanoTime() + BURST_WAIT_NS;
                    for (int got = 0; got < n; ) {
                        long leftNs = deadline - System.nanoTime();
                        if (leftNs <= 0 || client.receive(reply, meta, leftNs) < 0) {
                            break;                       // lost or late: the next burst goes on
                        }
                        got++;
                    }
                    burst = burst % MAX_BURST + 1;
                    if (++bursts % NEW_SOURCE_EVERY == 0) {
                        client.renew();                  // a new source port: the peer table misses and inserts
                    }
                }
            }
            reflector.stop();
            reflector.awaitEnd(TimeUnit.MILLISECONDS.toNanos(JOIN_MS));
            reflected = reflector.reflected();
            followUps = reflector.followUpsReported();
        } catch (IOException | RuntimeException e) {
            // an optimisation only: the reflector that follows reports its own socket errors
            completed = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            completed = false;
        }
        return new Result(sent, reflected, followUps, System.nanoTime() - startNs, completed, 0);
    }

    /**
     * Starts a warm-up of {@code sender} on a thread of its own for the session that starts at {@code startNanoTime}
     * ({@link System#nanoTime()} scale): at most {@link #SENDER_MAX_NS}, ended {@link #SENDER_MARGIN_NS} before the
     * start or when {@code stop} returns true. Nothing runs when less time than the margin is left.
     *
     * @param peer           the session's reflector (for its address family; the warm-up stays on loopback)
     * @param spinNs         the session's pacer spin window
     * @param kernelTxStamps the session's send stamp: kernel TX stamps on a receiving and a sending socket as one
     *                       {@link SplitTestSocket} (docs/CLIENT.md, "Two sockets"),
     *                       or one socket without TX stamps ({@code --send-stamp user}); the warm-up runs the same
     */
    public static SenderWarmUp beforeSession(Sender sender, InetAddress peer, long spinNs, boolean kernelTxStamps,
                                             long startNanoTime, BooleanSupplier stop) {
        long endNs = startNanoTime - SENDER_MARGIN_NS;
        long maxNs = Math.min(SENDER_MAX_NS, endNs - System.nanoTime());
        if (maxNs <= 0) {
            return new SenderWarmUp(null, startNanoTime, stop);
        }
        InetAddress loopback = loopback(peer);
        BooleanSupplier ended = () -> stop.getAsBoolean() || System.nanoTime() - endNs >= 0;
        Thread t = Thread.ofPlatform().daemon(true).name("twping-warmup").start(() ->
                run(sender.reflectorSpec(), new Sender[] {sender}, loopback, spinNs, kernelTxStamps, DEFAULT_PACKETS,
                        maxNs, ended));
        return new SenderWarmUp(t, startNanoTime, stop);
    }

    /** A running sender warm-up: the session waits through {@link #awaitStart} before starting its threads. */
    public static final class SenderWarmUp {
        private final Thread thread;
        private final long startNanoTime;
        private final BooleanSupplier stop;

        SenderWarmUp(Thread thread, long startNanoTime, BooleanSupplier stop) {
            this.thread = thread;
            this.startNanoTime = startNanoTime;
            this.stop = stop;
        }

        /**
         * Returns {@link #SENDER_MARGIN_NS} before the start time when the warm-up has ended by then, else when it
         * ends, at the latest {@link #START_LATEST_NS} before the start time whatever it does (it stops itself at the
         * margin); at once when no warm-up was started or {@code stop} returns true (checked every 10 ms). The caller
         * then starts the session's threads, before the start time in every case.
         */
        public void awaitStart() {
            if (thread == null) {
                return;
            }
            long marginAt = startNanoTime - SENDER_MARGIN_NS;
            long latestAt = startNanoTime - START_LATEST_NS;
            try {
                while (!stop.getAsBoolean()) {
                    long now = System.nanoTime();
                    boolean alive = thread.isAlive();
                    if (now - latestAt >= 0 || (!alive && now - marginAt >= 0)) {
                        return;
                    }
                    Duration wait = Duration.ofNanos(Math.max(1,
                            Math.min(POLL_NS, (alive ? latestAt : marginAt) - now)));
                    if (alive) {
                        thread.join(wait);                      // returns early when the warm-up ends
                    } else {
                        Thread.sleep(wait);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Whether a warm-up thread was started (not when the start time was too close). */
        public boolean started() {
            return thread != null;
        }

        /** Whether the warm-up thread has ended (true when none was started). */
        public boolean ended() {
            return thread == null || !thread.isAlive();
        }
    }

    /**
     * The phases one after the other against one in-process reflector of {@code reflectorSpec}, the packets shared
     * between them; package-private for the tests.
     */
    static Result run(StampReflectorSpec reflectorSpec, Sender[] phases, InetAddress loopback, long spinNs,
                      boolean kernelTxStamps, long packets, long maxNs, BooleanSupplier stop) {
        ScheduleSlot[] slots = SLOTS;
        long startNs = System.nanoTime();
        packets = Math.min(packets, MAX_PACKETS);
        long handled = 0;
        long reflected = 0;
        long followUps = 0;
        int sockets = 0;
        boolean completed = loopback != null;
        if (loopback == null) {
            return Result.NONE;
        }
        try (StampReflector reflector = new StampReflector(reflectorSpec,
                StampReflector.openSocket(new InetSocketAddress(loopback, 0), 0), null)) {
            reflector.start();
            long perPhase = Math.max(1, packets / phases.length);
            for (Sender sender : phases) {
                if (stop.getAsBoolean() || System.nanoTime() - startNs >= maxNs) {
                    completed = false;
                    break;
                }
                long[] phaseHandled = new long[2];
                completed &= phase(sender, reflector.localAddress(), loopback, spinNs, kernelTxStamps, slots, perPhase,
                        maxNs - (System.nanoTime() - startNs), stop, phaseHandled);
                handled += phaseHandled[0];
                sockets = (int) Math.max(sockets, phaseHandled[1]);
            }
            reflected = reflector.reflected();
            followUps = reflector.followUpsReported();
        } catch (IOException | RuntimeException e) {
            // an optimisation only: the measurement that follows reports its own socket errors
            completed = false;
        }
        return new Result(handled, reflected, followUps, System.nanoTime() - startNs, completed, sockets);
    }

    private static boolean phase(Sender sender, InetSocketAddress reflector, InetAddress loopback, long spinNs,
                                 boolean kernelTxStamps, ScheduleSlot[] slots,
                                 long packets, long maxNs, BooleanSupplier stop, long[] handled) throws IOException {
        long startNs = System.nanoTime();
        UdpSocketOptions options = UdpSocketOptions.builder().bindAddress(loopback).unicastTtl(255)
                .receiveTtl(true).receiveTos(true).reusePort(kernelTxStamps)
                .timestamping(kernelTxStamps ? Timestamping.RX_TX_SOFTWARE : Timestamping.RX_SOFTWARE)
                .receiveBufferBytes(1 << 20).sendBufferBytes(1 << 20).build();
        try (UdpSocket client = UdpSocket.open(options);
             UdpSocket sending = kernelTxStamps ? SplitTestSocket.openSender(client, reflector,
                     UdpSocketOptions.builder().receiveBufferBytes(1 << 20).sendBufferBytes(1 << 20)) : null) {
            // the session's own arrangement: a SplitTestSocket over the two, as StampRun opens it
            UdpSocket socket = sending == null ? client : new SplitTestSocket(client, sending);
            handled[1] = sending == null ? 1 : 2;
            for (int attempt = 0; attempt < BUILD_ATTEMPTS; attempt++) {
                try (FileChannel channel = SessionDataWriter.openAnonymousTempFile(null)) {
                    Boolean completed = session(sender, socket, channel, reflector, loopback, spinNs, slots, packets,
                            startNs, maxNs, stop, handled);
                    if (completed != null) {
                        return completed;
                    }
                }
                if (stop.getAsBoolean() || System.nanoTime() - startNs >= maxNs) {
                    break;
                }
            }
            return false;
        }
    }

    /**
     * One warm-up session on {@code client}; null (nothing sent) when building it took so long that its first slot
     * had passed: the first session of a JVM loads and links its classes for several hundred ms, and a sender that
     * late would skip its packets until it caught up. The next attempt is built in a fraction of that.
     */
    private static Boolean session(Sender sender, UdpSocket client, FileChannel channel, InetSocketAddress reflector,
                                   InetAddress loopback, long spinNs, ScheduleSlot[] slots, long packets,
                                   long startNs, long maxNs,
                                   BooleanSupplier stop, long[] handled) throws IOException {
        WallClock clock = WallClock.system();
        byte[] sid = new byte[16];
        new SecureRandom().nextBytes(sid);
        long startNtp = clock.nowNtp() + START_DELAY_NTP;
        int padding = sender.stamp() != null ? sender.stamp().tlvBytes() : sender.lightPadding();
        int ipvn = loopback instanceof Inet6Address ? 6 : 4;
        SessionHeader header = new SessionHeader(sid, ipvn, loopback.getAddress(), client.localAddress().getPort(),
                loopback.getAddress(), reflector.getPort(), packets, padding, startNtp, LOSS_TIMEOUT_NTP, 0,
                SessionHeader.fixedFlags(slots), SessionHeader.values(slots), SessionHeader.FINISHED_INCOMPLETE);
        try (SessionDataWriter writer = SessionDataWriter.onChannel(channel, header, 256)) {
            SendSchedule schedule = new SendSchedule(sid, slots, packets);
            ClockErrorEstimate errors = ClockErrorEstimate.of(false, 0);
            ClientTestSession session = sender.stamp() != null
                    ? StampSenderSession.create(client, reflector, sender.stamp(), schedule, packets, startNtp,
                    LOSS_TIMEOUT_NTP, spinNs, writer, clock, errors, line -> { },
                    sender.telemetry() ? new StampTelemetry(packets, sender.stamp().tlvs()) : null)
                    : StampSenderSession.createLight(client, reflector, padding, schedule, packets, startNtp,
                    LOSS_TIMEOUT_NTP, spinNs, writer, clock, errors, line -> { }, sender.lightKey());
            if (clock.nowNtp() - startNtp >= 0) {
                return null;
            }
            session.start();
            boolean completed;
            try {
                completed = TwampSessionWarmUp.runToEnd(session, packets, startNs, maxNs, stop);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                completed = false;
            } finally {
                session.cancel();
                try {
                    session.join(JOIN_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            handled[0] = session.sequencesHandled();
            return completed;
        }
    }

    /** The reflector warm-up's client socket, replaced by one on a new port by {@link #renew}. */
    private static final class SourceSocket implements AutoCloseable {
        private final UdpSocketOptions options;
        private UdpSocket socket;

        SourceSocket(UdpSocketOptions options) throws SocketException {
            this.options = options;
            this.socket = UdpSocket.open(options);
        }

        void renew() throws SocketException {
            UdpSocket next = UdpSocket.open(options);
            socket.close();
            socket = next;
        }

        int send(MemorySegment packet, int length, InetSocketAddress target) throws IOException {
            return socket.send(packet, length, target);
        }

        int receive(MemorySegment buffer, ReceivedPacket meta, long timeoutNs)
                throws IOException {
            return socket.receive(buffer, meta, timeoutNs);
        }

        @Override
        public void close() {
            socket.close();
        }
    }

    /** 127.0.0.1, or ::1 when {@code peer} is IPv6; null when that loopback is not known. */
    static InetAddress loopback(InetAddress peer) {
        try {
            return peer instanceof Inet6Address ? InetAddress.getByName("::1") : InetAddress.getByName("127.0.0.1");
        } catch (UnknownHostException e) {
            return null;
        }
    }

}
