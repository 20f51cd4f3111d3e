package io.github.twping.session;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.pacing.Pacer;
import io.github.twping.pacing.ParkThenSpinPacer;
import io.github.twping.protocol.SenderPacket;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.time.ClockPairing;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.HdrHistogram.Histogram;
import java.util.function.BooleanSupplier;

/**
 * The Session-Sender: sends test packets on the bit-exact owamp schedule (RFC 4656 §5, docs/PROTOCOL-TEST.md) at absolute
 * deadlines, each timestamped as late as possible, and hands what it did to the receiver through the
 * {@link SendLog}. Runs on its own platform thread ({@link #run}), or is stepped one packet at a time by a
 * {@link SharedSender} that sends for many sessions ({@link #beginSteps}, {@link #step}, {@link #endSteps}); either
 * way it allocates nothing per packet.
 */
final class SessionSender implements Runnable {
    private static final int SEND_RETRIES = 1000;

    private final UdpSocket socket;
    private final TestPacketCipher cipher;
    private final MemorySegment packet;
    private final SenderPacket fields;
    private final int packetLength;
    private final int paddingOffset;
    private final InetSocketAddress reflector;
    private final SendSchedule schedule;
    private final long packetCount;
    private final long startTimeNtp;
    private final long lossTimeoutNtp;
    private Pacer pacer; // replaced only before the thread starts (ClientTestSession.rtPriority)
    private final WallClock clock;
    private final ClockErrorEstimate errorEstimate;
    private final SendLog log;
    private final SessionControl control;
    /** Where the send lateness goes, or null (not recorded); set before the sender thread starts. */
    private Histogram lateness;
    private final SplittableRandom padding = new SplittableRandom();
    private final BooleanSupplier running;

    private long sentCount;
    private long skippedCount;
    // the session's clock pairing and schedule position, carried from one sendOne to the next
    private long baseMonoNs;
    private long baseNtp;
    private long offsetNtp;
    private long previousDeadlineNs;
    // the packet due next: its scheduled time (NTP) and monotonic deadline, and (stepping) its sequence number
    private long dueScheduledNtp;
    private long dueDeadlineNs;
    private long nextSeq;
    private final long spinNs;
    private final CountDownLatch stepsEnded = new CountDownLatch(1);

    /**
     * @param pacer  waits for each deadline in {@link #run}
     * @param spinNs the busy-wait window before each send when a {@link SharedSender} steps this session (the
     *               session's {@code spinNs}, or {@link ParkThenSpinPacer#ADAPTIVE})
     */
    SessionSender(UdpSocket socket, TestPacketCipher cipher, int packetLength, InetSocketAddress reflector,
                  SendSchedule schedule, long packetCount, long startTimeNtp,
                  long lossTimeoutNtp, Pacer pacer, long spinNs, WallClock clock, ClockErrorEstimate errorEstimate,
                  SendLog log, SessionControl control) {
        this.spinNs = spinNs;
        this.socket = socket;
        this.cipher = cipher;
        this.packetLength = packetLength;
        this.paddingOffset = cipher.senderLayout().paddingOffset();
        this.packet = MemorySegment.ofArray(new byte[Math.max(packetLength, 128)]);
        this.fields = new SenderPacket(cipher.senderLayout()).wrap(packet);
        this.reflector = reflector;
        this.schedule = schedule;
        this.packetCount = packetCount;
        this.startTimeNtp = startTimeNtp;
        this.lossTimeoutNtp = lossTimeoutNtp;
        this.pacer = pacer;
        this.clock = clock;
        this.errorEstimate = errorEstimate;
        this.log = log;
        this.control = control;
        this.running = control::running;   // one instance: a bound method reference allocates per evaluation
    }

    /** Where the send lateness goes; before the sender thread starts only. */
    void recordLatenessInto(Histogram latenessNs) {
        this.lateness = latenessNs;
    }

    /** Replaces the pacer; before the sender thread starts only. */
    void pacer(Pacer replacement) {
        this.pacer = replacement;
    }

    long sentCount() {
        return sentCount;
    }

    long skippedCount() {
        return skippedCount;
    }

    @Override
    public void run() {
        try {
            sendAll();
        } catch (SocketException | RuntimeException | Error e) {
            failed(e);
        } finally {
            log.senderFinished();
        }
    }

    /** Ends the session for an exception of the sender's: the C client's line for a send error, else its name. */
    void failed(Throwable e) {
        if (e instanceof SocketException) {
            control.fail(SessionOutcome.SEND_FAILED,
                    "Unable to send([" + reflector.getAddress().getHostAddress() + "]:" + reflector.getPort()
                            + ":(#" + log.published() + "): " + e.getMessage());
        } else {
            control.fail(SessionOutcome.SEND_FAILED, "sender: " + e);
        }
    }

    private void sendAll() throws SocketException {
        begin();
        for (long seq = 0; seq < packetCount; seq++) {
            if (!sendOne(seq)) {
                return;
            }
        }
    }

    /**
     * One pairing of the two clock domains per session: wall-clock NTP for the wire, monotonic for pacing; the
     * narrowest of several readings, as a preemption between two reads would shift every deadline.
     */
    private void begin() {
        schedule.reset();
        ClockPairing pairing = ClockPairing.of(clock);
        baseMonoNs = pairing.monoNs();
        baseNtp = pairing.ntp();
        offsetNtp = 0;
        previousDeadlineNs = baseMonoNs;
    }

    /**
     * Paces, stamps and sends packet {@code seq}; false when the session stopped. One method per packet, not
     * the body of {@link #sendAll}'s loop: a loop entered once per session is compiled only by on-stack
     * replacement, after tens of thousands of iterations, so a session of a few thousand packets ran that body
     * in the interpreter, and at 500/s (its bytecodes and interpreter paths cold after each 2 ms sleep) the
     * step from the end of the spin to the send stamp took 1.5-2.8 µs, the median of the send lateness; a
     * method called per packet is compiled by its calls, which the engine warm-up makes
     * (docs/PERFORMANCE.md, "Pacing").
     */
    private boolean sendOne(long seq) throws SocketException {
        scheduleNext();
        if (!log.awaitSlot(seq, running)) {
            return false;
        }
        sealDueHead(seq);
        long latenessNs = pacer.awaitDeadlineAfter(dueDeadlineNs, previousDeadlineNs);
        return sendDue(seq, latenessNs, YIELD_AFTER_SEND);
    }

    /** The next packet's scheduled time (NTP) and its deadline on the monotonic clock. */
    private void scheduleNext() {
        offsetNtp += schedule.nextDeltaNtp();
        dueScheduledNtp = startTimeNtp + offsetNtp;
        dueDeadlineNs = baseMonoNs + NtpTime.signedDurationToNanos(dueScheduledNtp - baseNtp);
    }

    /** The due packet's padding and the part of its protection before the timestamp. */
    private void sealDueHead(long seq) {
        fillPadding();
        sealHead(seq);
    }

    /**
     * Sends the due packet {@code seq}, its deadline reached {@code latenessNs} ago, or skips it when it is more than
     * the loss timeout behind schedule; false when the session stopped. {@code yieldAfterSend}: whether the thread may
     * give up its CPU after the send ({@link #yieldsAfter}).
     */
    private boolean sendDue(long seq, long latenessNs, boolean yieldAfterSend) throws SocketException {
        long scheduledNtp = dueScheduledNtp;
        long deadlineNs = dueDeadlineNs;
        long intervalNs = deadlineNs - previousDeadlineNs;
        previousDeadlineNs = deadlineNs;
        if (!control.running()) {
            return false;
        }
        long nowNtp = clock.nowNtp();
        if (Long.compareUnsigned(nowNtp, scheduledNtp + lossTimeoutNtp) > 0) {
            // More than L behind schedule: not sent, and in no statistic (docs/CLIENT.md step 3).
            log.publishSkipped(seq, scheduledNtp);
            skippedCount++;
            return true;
        }
        sealTail(nowNtp);
        // Published before the send: on loopback the reply can arrive before send() returns.
        log.publishSent(seq, scheduledNtp, nowNtp, socket.sentPacketCount());
        int retries = 0;
        while (socket.send(packet, packetLength, reflector) == 0 && retries++ < SEND_RETRIES) {
            // ENOBUFS/EAGAIN: rebuild with a fresh timestamp and retry at once, as C does.
            Thread.onSpinWait();
            nowNtp = clock.nowNtp();
            sealHead(seq);
            sealTail(nowNtp);
        }
        if (lateness != null) {
            lateness.recordValue(Math.min(Math.max(latenessNs, 0), lateness.getHighestTrackableValue()));
        }
        sentCount++;
        if (yieldsAfter(yieldAfterSend, intervalNs)) {
            Thread.yield();
        }
        return true;
    }

    // ---- one packet at a time, for a thread that sends for many sessions ({@link SharedSender}) --------------

    /** What {@link #step} left to do. */
    static final int STEP_NEXT = 0;
    /** The due packet's slot in the send log is still pending at the receiver: step again a little later. */
    static final int STEP_SLOT_BUSY = 1;
    /** Nothing more to send: the session stopped or every packet was handled; call {@link #endSteps}. */
    static final int STEP_ENDED = 2;
    /** How long a step waits for a slot still pending at the receiver, ns (as {@link SendLog#awaitSlot}). */
    static final long SLOT_RETRY_NS = 20_000;

    /**
     * Starts sending step by step, on the calling thread from now on: pairs the clocks and prepares packet 0.
     *
     * @return false when there is nothing to send (no packet, or the session stopped); call {@link #endSteps}
     */
    boolean beginSteps() {
        begin();
        nextSeq = 0;
        if (packetCount <= 0 || !control.running()) {
            return false;
        }
        scheduleNext();
        sealDueHead(0);
        return true;
    }

    /** @return the monotonic deadline of the packet {@link #step} sends next */
    long dueDeadlineNs() {
        return dueDeadlineNs;
    }

    /**
     * @return how long before {@link #dueDeadlineNs} a thread stepping this session busy-waits: the session's spin
     * window, capped at a quarter of the interval to its previous deadline as {@link ParkThenSpinPacer} caps it (a
     * learnt window, {@link ParkThenSpinPacer#ADAPTIVE}, counts as its starting value)
     */
    long spinWindowNs() {
        long windowNs = spinNs == ParkThenSpinPacer.ADAPTIVE ? ParkThenSpinPacer.ADAPTIVE_START_NS : spinNs;
        return Math.min(windowNs, Math.max(0, dueDeadlineNs - previousDeadlineNs) >> ParkThenSpinPacer.QUARTER_INTERVAL);
    }

    /**
     * Sends (or skips, more than the loss timeout behind schedule) the due packet, its deadline reached at
     * {@code nowNs} (the lateness recorded is {@code nowNs - }{@link #dueDeadlineNs}), and prepares the next one:
     * the same records, lateness and skip rule as {@link #run}, without its wait and without a yield after the send
     * (the next session's packet may be due). Allocates nothing.
     *
     * @return {@link #STEP_NEXT}, {@link #STEP_SLOT_BUSY} or {@link #STEP_ENDED}
     */
    int step(long nowNs) throws SocketException {
        long seq = nextSeq;
        if (!log.slotFree(seq)) {
            return control.running() ? STEP_SLOT_BUSY : STEP_ENDED;
        }
        if (!sendDue(seq, nowNs - dueDeadlineNs, false)) {
            return STEP_ENDED;
        }
        nextSeq = ++seq;
        if (seq >= packetCount) {
            return STEP_ENDED;
        }
        scheduleNext();
        sealDueHead(seq);
        return STEP_NEXT;
    }

    /** @return true once the session has stopped (cancelled, failed or finished by the receiver) */
    boolean stopped() {
        return !control.running();
    }

    /** Hands the session back after the last step: the receiver sees the sender finished, {@link #awaitSteps} returns. */
    void endSteps() {
        log.senderFinished();
        stepsEnded.countDown();
    }

    /** Waits up to {@code timeoutMs} for {@link #endSteps}; true if it came. */
    boolean awaitSteps(long timeoutMs) throws InterruptedException {
        return stepsEnded.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** @return true once {@link #endSteps} was called */
    boolean stepsEnded() {
        return stepsEnded.getCount() == 0;
    }

    /** The {@link SharedSender}'s: when the thread that steps this session looks at it next, ns. */
    long wakeNs;

    /** System property: false keeps the CPU after each send ({@link #yieldsAfter}); default true. */
    public static final String YIELD_PROPERTY = "twping.sender.yieldAfterSend";
    private static final boolean YIELD_AFTER_SEND = !"false".equals(System.getProperty(YIELD_PROPERTY));
    /** Below this interval between two sends, ns, the sender keeps its CPU (10,000/s and faster). */
    static final long YIELD_MIN_INTERVAL_NS = 100_000;

    /**
     * Whether the sender gives up its CPU right after a send ({@code sched_yield(2)} through {@link Thread#yield()}):
     * a reflector on the same host that the send woke is often placed on the sender's CPU, and would otherwise wait
     * there until the sender parks again, its bookkeeping after the send in the forward leg (docs/CLIENT.md, "After
     * the send"; docs/notes/2026-12-05-yield-after-send.md). Not at 10,000/s and faster, where the next send is
     * near and a reflector keeps up on its own CPU; no system call there.
     */
    static boolean yieldsAfter(boolean enabled, long intervalNs) {
        return enabled && intervalNs >= YIELD_MIN_INTERVAL_NS;
    }

    /** Step 1: sequence number and MBZ, then what the cipher protects before the timestamp. */
    private void sealHead(long seq) {
        fields.clearMbz().sequenceNumber(seq);
        cipher.sealSenderHead(packet);
    }

    /** Step 2, at the last moment: timestamp and error estimate, then the rest of the protection. */
    private void sealTail(long nowNtp) {
        fields.timestampNtp(nowNtp).errorEstimate(errorEstimate.field());
        cipher.sealSenderTail(packet);
    }

    private void fillPadding() {
        int end = packetLength - 7;
        int i = paddingOffset;
        for (; i < end; i += 8) {
            packet.set(ValueLayout.JAVA_LONG_UNALIGNED, i, padding.nextLong());
        }
        for (; i < packetLength; i++) {
            packet.set(ValueLayout.JAVA_BYTE, i, (byte) padding.nextInt());
        }
    }
}
