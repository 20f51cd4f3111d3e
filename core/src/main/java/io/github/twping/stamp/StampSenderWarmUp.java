package io.github.twping.stamp;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
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
import io.github.twping.session.WarmUpPlan;
import java.lang.foreign.Arena;
import java.time.Duration;

/**
 * Compiles the STAMP and TWAMP-Light client engine of {@code twping --stamp/--light} while the start time
 * approaches, as {@code session.TwampSessionWarmUp} does for TWAMP (docs/STAMP.md, "Warm-up"): a throw-away session
 * of the engine ({@link StampSenderSession}'s sender, receiver and data-file writer) with the sender of the session
 * that follows against a matching in-process reflector, on a schedule that exercises the pacer's spin and its
 * sleep; sized and stopped by {@link WarmUpPlan} (ended {@link WarmUpPlan#STOP_BEFORE_START_NS} before the start
 * time), and the session's threads are started by then whatever the warm-up does ({@link Running#awaitStart}). The
 * reflector's counterpart is {@link StampReflectorWarmUp}.
 *
 * <p>Loopback only (127.0.0.1, or ::1 for an IPv6 peer); bounded by a packet count and a time; any failure ends it
 * quietly: it is an optimisation, never a reason for a run to fail.
 */
public final class StampSenderWarmUp {
    /** Packets of the full warm-up: above C2's invocation threshold (5,000) for the per-packet methods. */
    public static final long DEFAULT_PACKETS = WarmUpPlan.FULL_PACKETS;
    /** The session's threads are started at the latest this long before the start time, warm-up ended or not. */
    static final long START_LATEST_NS = TimeUnit.MILLISECONDS.toNanos(50);

    /** Five packets 20 µs apart, then a gap longer than the pacer's spin window: 66.7 µs on average. */
    private static final ScheduleSlot[] SLOTS = TwampSessionWarmUp.slots(
            NtpTime.fromSeconds(0.00002), 5, NtpTime.fromSeconds(0.0003));
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

    private StampSenderWarmUp() {
    }

    /**
     * Starts a warm-up of {@code sender} on a thread of its own for the session that starts at {@code startNanoTime}
     * ({@link System#nanoTime()} scale): {@code packets} packets ({@link WarmUpPlan#packets}) for at most
     * {@link WarmUpPlan#MAX_NS}, ended {@link WarmUpPlan#STOP_BEFORE_START_NS} before the start or when {@code stop}
     * returns true. Nothing runs for 0 packets or when less time than that is left.
     *
     * @param peer           the session's reflector (for its address family; the warm-up stays on loopback)
     * @param spinNs         the session's pacer spin window
     * @param kernelTxStamps the session's send stamp: kernel TX stamps on a receiving and a sending socket as one
     *                       {@link SplitTestSocket} (docs/CLIENT.md, "Two sockets"),
     *                       or one socket without TX stamps ({@code --send-stamp user}); the warm-up runs the same
     */
    public static Running beforeSession(Sender sender, InetAddress peer, long spinNs, boolean kernelTxStamps,
                                        long packets, long startNanoTime, BooleanSupplier stop) {
        long endNs = WarmUpPlan.endNanoTime(startNanoTime);
        long maxNs = WarmUpPlan.maxNs(startNanoTime, System.nanoTime());
        if (maxNs <= 0 || packets <= 0) {
            return new Running(null, startNanoTime, stop);
        }
        InetAddress loopback = loopback(peer);
        BooleanSupplier ended = () -> stop.getAsBoolean() || System.nanoTime() - endNs >= 0;
        Thread t = Thread.ofPlatform().daemon(true).name("twping-warmup").start(() ->
                run(sender.reflectorSpec(), new Sender[] {sender}, loopback, spinNs, kernelTxStamps, packets,
                        maxNs, ended));
        return new Running(t, startNanoTime, stop);
    }

    /** A running sender warm-up: the session waits through {@link #awaitStart} before starting its threads. */
    public static final class Running {
        private final Thread thread;
        private final long startNanoTime;
        private final BooleanSupplier stop;

        Running(Thread thread, long startNanoTime, BooleanSupplier stop) {
            this.thread = thread;
            this.startNanoTime = startNanoTime;
            this.stop = stop;
        }

        /**
         * Returns {@link WarmUpPlan#STOP_BEFORE_START_NS} before the start time when the warm-up has ended by then, else when it
         * ends, at the latest {@link #START_LATEST_NS} before the start time whatever it does (it stops itself at the
         * margin); at once when no warm-up was started or {@code stop} returns true (checked every 10 ms). The caller
         * then starts the session's threads, before the start time in every case.
         */
        public void awaitStart() {
            if (thread == null) {
                return;
            }
            long marginAt = WarmUpPlan.endNanoTime(startNanoTime);
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
    static StampWarmUpResult run(StampReflectorSpec reflectorSpec, Sender[] phases, InetAddress loopback, long spinNs,
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
            return StampWarmUpResult.NONE;
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
        return new StampWarmUpResult(handled, reflected, followUps, System.nanoTime() - startNs, completed, sockets);
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
        ThreadLocalRandom.current().nextBytes(sid);   // a throw-away loopback session: no SecureRandom (its provider)
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

    /** 127.0.0.1, or ::1 when {@code peer} is IPv6; null when that loopback is not known. */
    static InetAddress loopback(InetAddress peer) {
        try {
            return peer instanceof Inet6Address ? InetAddress.getByName("::1") : InetAddress.getByName("127.0.0.1");
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
