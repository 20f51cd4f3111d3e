package io.github.twping.session;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.security.SecureRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.SocketWarmUp;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.protocol.Mode;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiles the whole session engine before a measurement: a throw-away session of the real classes
 * ({@link ClientTestSession}'s sender, receiver and data-file writer against an in-process
 * {@link SessionReflector}) on loopback, in the mode, padding, send stamp and sockets of the session that
 * follows (two client sockets with kernel TX stamps, {@link SplitTestSocket#openSender}), on a schedule that
 * exercises both the pacer's spin and its sleep.
 *
 * <p>Why: the socket warm-up alone ({@link SocketWarmUp}) left the session's own per-packet methods to be
 * compiled during the session; at high rates the C2 compiler thread then took a CPU for seconds while the
 * session ran (2.4 s of compiler CPU in a 200,000-packet session at 50,000/s), and a session at 500/s ran
 * its first packets in the interpreter (docs/PERFORMANCE.md, "What perturbs a session"). One class serves
 * the client (during the control handshake, on its own thread, stopped before the start time) and
 * {@code twampd} (at start-up, for its reflector loop).
 *
 * <p>Loopback only; nothing leaves the host; bounded by a packet count and a time. Any failure ends it
 * quietly: it is an optimisation, never a reason for a run to fail.
 */
public final class TwampSessionWarmUp {
    /** Packets of the full warm-up ({@link WarmUpPlan#FULL_PACKETS}; twampd's, per mode). */
    public static final long DEFAULT_PACKETS = WarmUpPlan.FULL_PACKETS;
    /**
     * The warm-up's schedule: five packets 20 µs apart, then a 300 µs gap, repeated (66.7 µs on average). The gap
     * is longer than the pacer's spin window and the receiver's batch is then empty: a warm-up that only ever ran
     * back to back compiled the pacer without its park branch and the receiver without its wait, and the first
     * packets of a 500/s session then deoptimised and recompiled them (JIT log: dozens of recompilations in the
     * first 1.5 s of the session).
     */
    private static final ScheduleSlot[] SLOTS = slots(NtpTime.fromSeconds(0.00002), 5, NtpTime.fromSeconds(0.0003));
    private static final long START_DELAY_NTP = NtpTime.fromSeconds(0.005);
    /** Short: after a stop the receiver waits this long for replies in flight (in-process reflector). */
    private static final long LOSS_TIMEOUT_NTP = NtpTime.fromSeconds(0.05);
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long JOIN_MS = 300;
    private static final int WARM_UP_BUFFER_BYTES = 1 << 20;
    /**
     * Mode and send-stamp choice of each warm-up completed in this JVM ({@code "OPEN/kernel"}): compiled code
     * stays, so later sessions of the same kind skip it.
     */
    private static final Set<String> WARM = ConcurrentHashMap.newKeySet();

    /**
     * What a warm-up did: packets the sender handled, how long it took, and on how many sockets the client side
     * ran (2: a sending socket beside the receiving one, as a session with kernel TX stamps; 0: skipped or no
     * socket opened).
     */
    public record Result(long packets, long elapsedNs, boolean completed, int sockets) {
    }

    private TwampSessionWarmUp() {
    }

    /**
     * Runs one throw-away session of up to {@code packets} packets for at most {@code maxNs}, ending early once
     * {@code stop} returns true (checked every 10 ms); does nothing when a warm-up of {@code mode} has completed
     * in this JVM before (a library user running many sessions pays for it once). After the full warm-up, runs the socket
     * warm-up ({@link WarmUpPlan#socketRoundTrips}) with what time is left; after the short one, none.
     *
     * @param mode           the mode of the session that follows (its packet layouts and ciphers)
     * @param paddingBytes   its padding
     * @param spinNs         its pacer's spin window
     * @param kernelTxStamps its send time: the kernel's TX stamp, sent through a second socket on the same port
     *                       as the real session does where the socket supports it (docs/CLIENT.md, "Two
     *                       sockets"), or the stamp in the packet on one socket ({@code --send-stamp user}). A
     *                       warm-up of the other kind compiled a receiver whose branch on it failed in the first
     *                       0.1 s of the session (docs/PERFORMANCE.md, "Pacing at 10,000/s: a warm-up of the
     *                       other send path")
     */
    public static Result run(Mode mode, int paddingBytes, long spinNs, boolean kernelTxStamps, long packets, long maxNs,
                             BooleanSupplier stop) {
        String kind = kind(mode, kernelTxStamps);
        if (WARM.contains(kind)) {
            return new Result(0, 0, true, 0);
        }
        Result r = runOnce(mode, paddingBytes, spinNs, kernelTxStamps, packets, maxNs, stop);
        if (r.completed()) {
            WARM.add(kind);
        }
        return r;
    }

    /** @return whether a warm-up of this kind has completed in this JVM (so {@link #run} skips it) */
    static boolean isWarm(Mode mode, boolean kernelTxStamps) {
        return WARM.contains(kind(mode, kernelTxStamps));
    }

    private static String kind(Mode mode, boolean kernelTxStamps) {
        return mode + (kernelTxStamps ? "/kernel" : "/user");
    }

    /** One warm-up session, whether or not this JVM has run one before (tests). */
    static Result runOnce(Mode mode, int paddingBytes, long spinNs, boolean kernelTxStamps, long packets, long maxNs,
                          BooleanSupplier stop) {
        long startNs = System.nanoTime();
        long handled = 0;
        boolean completed = false;
        int sockets = 0;
        InetAddress loopback = InetAddress.getLoopbackAddress();
        TestSessionKeys keys = mode.authenticatedTestPackets() ? randomKeys() : null;
        UdpSocketOptions clientOptions = UdpSocketOptions.builder().bindAddress(loopback).unicastTtl(255)
                .receiveTtl(true).receiveTos(true).reusePort(kernelTxStamps)
                .timestamping(kernelTxStamps ? Timestamping.RX_TX_SOFTWARE : Timestamping.RX_SOFTWARE)
                .receiveBufferBytes(WARM_UP_BUFFER_BYTES).sendBufferBytes(WARM_UP_BUFFER_BYTES).build();
        try (UdpSocket client = UdpSocket.open(clientOptions);
             SessionReflector reflector = new SessionReflector(
                     new ReflectorSessionSpec(mode, client.localAddress(), paddingBytes, 0, keys),
                     SessionReflector.openSocket(new InetSocketAddress(loopback, 0), 0), null, null);
             UdpSocket sendSocket = kernelTxStamps ? SplitTestSocket.openSender(client, reflector.localAddress(),
                     UdpSocketOptions.builder().sendBufferBytes(WARM_UP_BUFFER_BYTES)
                             .receiveBufferBytes(WARM_UP_BUFFER_BYTES)) : null;
             FileChannel channel = SessionDataWriter.openAnonymousTempFile(null)) {
            sockets = sendSocket == null ? 1 : 2;
            reflector.start();
            WallClock clock = WallClock.system();
            byte[] sid = new byte[16];
            ThreadLocalRandom.current().nextBytes(sid);   // a throw-away loopback session: no SecureRandom (its provider)
            ScheduleSlot[] slots = SLOTS;
            long startNtp = clock.nowNtp() + START_DELAY_NTP;
            SessionHeader header = new SessionHeader(sid, 4, loopback.getAddress(), client.localAddress().getPort(),
                    loopback.getAddress(), reflector.localAddress().getPort(), packets, paddingBytes, startNtp,
                    LOSS_TIMEOUT_NTP, 0, SessionHeader.fixedFlags(slots), SessionHeader.values(slots),
                    SessionHeader.FINISHED_INCOMPLETE);
            try (SessionDataWriter writer = SessionDataWriter.onChannel(channel, header, 256)) {
                ClientTestSession session = new ClientTestSession(new ClientTestSession.Parameters(
                        reflector.localAddress(), new SendSchedule(sid, slots, packets), packets, paddingBytes,
                        startNtp, LOSS_TIMEOUT_NTP, spinNs, kernelTxStamps), client, sendSocket, mode, keys, writer, clock,
                        ClockErrorEstimate.of(false, 0), line -> { });
                session.start();
                try {
                    completed = runToEnd(session, packets, startNs, maxNs, stop);
                } finally {
                    session.cancel();
                    session.join(JOIN_MS);
                }
                handled = session.sequencesHandled();
            }
        } catch (IOException | RuntimeException e) {
            // an optimisation only: the measurement that follows reports its own socket errors
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long leftNs = maxNs - (System.nanoTime() - startNs);
        int roundTrips = WarmUpPlan.socketRoundTrips(packets);
        if (roundTrips > 0 && leftNs > 0 && !stop.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
            SocketWarmUp.run(roundTrips, leftNs, stop);
        }
        return new Result(handled, System.nanoTime() - startNs, completed, sockets);
    }

    /**
     * A warm-up schedule: {@code shortCount} fixed intervals of {@code shortNtp} (shorter than the spin window)
     * then one of {@code gapNtp} (longer: the pacer sleeps), repeated; shared with the STAMP warm-up.
     */
    public static ScheduleSlot[] slots(long shortNtp, int shortCount, long gapNtp) {
        ScheduleSlot[] slots = new ScheduleSlot[shortCount + 1];
        for (int i = 0; i < shortCount; i++) {
            slots[i] = ScheduleSlot.fixedOffset(shortNtp);
        }
        slots[shortCount] = ScheduleSlot.fixedOffset(gapNtp);
        return slots;
    }

    private static TestSessionKeys randomKeys() {
        SecureRandom random = new SecureRandom();
        byte[] aes = new byte[TestSessionKeys.AES_KEY_LENGTH];
        byte[] hmac = new byte[TestSessionKeys.HMAC_KEY_LENGTH];
        random.nextBytes(aes);
        random.nextBytes(hmac);
        return TestSessionKeys.of(aes, hmac);
    }

    /**
     * Waits for a started warm-up session to end, cancelling it when {@code stop} is true or {@code maxNs} have
     * passed since {@code startNs}; the caller still cancels and joins it afterwards (the STAMP warm-up shares it).
     *
     * @return true when it ended by itself with all {@code packets} handled
     */
    public static boolean runToEnd(ClientTestSession session, long packets, long startNs, long maxNs,
                                   BooleanSupplier stop) throws InterruptedException {
        while (!session.await(POLL_NS)) {
            if (stop.getAsBoolean() || System.nanoTime() - startNs >= maxNs) {
                session.cancelAndWake();             // the warm-up's socket is not used again
                session.await(TimeUnit.MILLISECONDS.toNanos(JOIN_MS));
                break;
            }
        }
        return session.isDone() && session.sequencesHandled() >= packets;
    }
}
