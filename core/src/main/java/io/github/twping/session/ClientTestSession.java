package io.github.twping.session;

import java.net.InetSocketAddress;
import java.util.BitSet;
import java.util.function.Consumer;

import io.github.twping.crypto.TestPacketCipher;
import io.github.twping.crypto.TestSessionKeys;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.RealtimeClock;
import io.github.twping.ffm.ThreadTuning;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.pacing.ParkThenSpinPacer;
import io.github.twping.protocol.Mode;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.RecordStamps;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.time.NtpTime;
import io.github.twping.time.StopTrace;
import io.github.twping.time.WallClock;
import org.HdrHistogram.Histogram;

/**
 * One TWAMP-Test session seen from the client: a {@link SessionSender} and a {@link ReplyReceiver} on two
 * platform threads over one bound UDP socket, writing the session data file; or, for a caller running many
 * sessions at once (the agent), its receiver on a thread of its own and its sends from a {@link SharedSender}.
 *
 * <p>Configure, then {@link #start()}; {@link #await(long)} until it ends (after the last packet's loss
 * timeout, an invalid reply, an error, or {@link #cancel()}); then read the outcome and counters. The
 * socket and the writer stay owned by the caller.
 */
public final class ClientTestSession {
    /** Largest ring of in-flight packets; more than that waits for the receiver (never happens below 1 Mpps·s). */
    private static final int MAX_IN_FLIGHT = 1 << 20;
    /** Largest send lateness recorded, 10 s; later sends are clamped to it. */
    private static final long MAX_LATENESS_NS = 10_000_000_000L;

    private final SessionControl control;
    private final SessionSender sender;
    private final ReplyReceiver receiver;
    private final SendLog log;
    private final RecordSources sources;
    private RecordStamps stamps;
    private final long packetCountForStamps;
    /**
     * Significant digits of the send-lateness histogram: 2 (1 % resolution) keeps its counts array at 28 KB where
     * 3 digits took 200 KB per session, a fifth of a running agent's live heap with 100 targets (docs/PERFORMANCE.md,
     * "Fleet and daemon memory").
     */
    private static final int LATENESS_DIGITS = 2;
    /** Made by {@link #start()} unless {@link #withoutLateness()} was called. */
    private Histogram latenessNs;
    private boolean recordLateness = true;
    /** The session's own sender thread; never started with a {@link #sharedSender}. */
    private final Thread senderThread;
    private final Thread receiverThread;
    /** Sends this session's packets instead of its own sender thread, or null ({@link #sharedSender}). */
    private SharedSender shared;
    private volatile boolean started;
    /** The socket the receiver blocks in. */
    private final UdpSocket receiving;
    private volatile BitSet cpus;
    private volatile int rtPriority;
    /**
     * System property: the sender thread's scheduler slice in ns (default {@value ThreadTuning#MIN_SLICE_NS}, the
     * kernel's shortest; 0 leaves the default slice).
     */
    public static final String SLICE_PROPERTY = "twping.sender.sliceNs";
    /** System property: the sender thread's timer slack in ns (default 1). */
    public static final String TIMER_SLACK_PROPERTY = "twping.sender.timerSlackNs";
    /**
     * System property: true caps the spin window by the larger of the interval and the running mean interval
     * instead of the interval alone (a measurement switch, off by default; docs/notes/2026-12-04-tails.md).
     */
    public static final String MEAN_CAP_PROPERTY = "twping.sender.spinCapMean";
    private static final boolean MEAN_CAP = Boolean.getBoolean(MEAN_CAP_PROPERTY);
    /**
     * System property: the share of the sender's recent sleeps, in percent (1..100), whose wake-up overshoot the
     * learnt spin window ({@code --spin auto}) covers; default {@value ParkThenSpinPacer#DEFAULT_COVERAGE_PERCENT}.
     * A measurement switch (docs/notes/2026-12-05-spin-coverage.md); a value out of range keeps the default.
     */
    public static final String COVERAGE_PROPERTY = "twping.sender.spinCoverage";
    private static final int COVERAGE = coverage(Integer.getInteger(COVERAGE_PROPERTY,
            ParkThenSpinPacer.DEFAULT_COVERAGE_PERCENT));
    private final long spinNs;
    private final WallClock wallClock;
    /**
     * System property: the window in ns for which the receiver lets replies gather before it reads them, in sessions
     * that send at least two packets per window and no faster than 2000/s (default {@value #DEFAULT_GATHER_NS}; 0:
     * off; at most the receiver's 20 ms tick). docs/CLIENT.md, "Gathering replies".
     */
    public static final String GATHER_PROPERTY = "twping.receiver.gatherNs";
    static final long DEFAULT_GATHER_NS = 20_000_000L;
    private static final long GATHER_NS = Long.getLong(GATHER_PROPERTY, DEFAULT_GATHER_NS);
    /** The schedule's mean send interval, ns. */
    private final long meanIntervalNs;
    /** The fastest mean send interval with gathering: above 2000/s the receiver is rarely idle, and replies queue. */
    static final long GATHER_MIN_INTERVAL_NS = 500_000L;

    /**
     * @param parameters  what to send and when
     * @param socket      the bound test socket (TTL, DSCP and timestamping already configured)
     * @param mode        the negotiated mode: selects the packet layouts and their protection
     * @param keys        test-session keys (Authenticated and Encrypted), or null
     * @param writer      the session data file, header written
     * @param clock       wall clock (with any debug offset)
     * @param errors      the error estimate put on our timestamps
     * @param diagnostics where the C-compatible diagnostic lines go (e.g. {@code twping: ...} on stderr)
     */
    public ClientTestSession(Parameters parameters, UdpSocket socket, Mode mode, TestSessionKeys keys,
                             SessionDataWriter writer, WallClock clock, ClockErrorEstimate errors,
                             Consumer<String> diagnostics) {
        this(parameters, socket, null, mode, keys, writer, clock, errors, diagnostics);
    }

    /**
     * As above, sending through {@code sendSocket} (bound to the same port with SO_REUSEPORT, its received
     * datagrams dropped) while {@code socket} receives: the kernel TX timestamps then queue on a socket no thread
     * sleeps on, so they do not wake the receiver at the moment a reflector on the same host is woken for the
     * packet (docs/PERFORMANCE.md, "What perturbs a session"); null = one socket for both.
     */
    public ClientTestSession(Parameters parameters, UdpSocket socket, UdpSocket sendSocket, Mode mode,
                             TestSessionKeys keys, SessionDataWriter writer, WallClock clock, ClockErrorEstimate errors,
                             Consumer<String> diagnostics) {
        // one cipher per thread: the keyed ciphers keep chaining and HMAC state
        this(parameters, socket, sendSocket, TestPacketCipher.forMode(mode, keys), TestPacketCipher.forMode(mode, keys),
                writer, clock, errors, diagnostics);
    }

    /**
     * A session over other packet layouts (STAMP, TWAMP-Light): the same sender, receiver, pacing and data file,
     * with the wire handled by two ciphers of the same layouts, one per thread.
     *
     * @param senderCipher   used by the sender thread only
     * @param receiverCipher used by the receiver thread only
     */
    public ClientTestSession(Parameters parameters, UdpSocket socket, TestPacketCipher senderCipher,
                             TestPacketCipher receiverCipher, SessionDataWriter writer, WallClock clock,
                             ClockErrorEstimate errors, Consumer<String> diagnostics) {
        this(parameters, socket, null, senderCipher, receiverCipher, writer, clock, errors, diagnostics);
    }

    private ClientTestSession(Parameters parameters, UdpSocket socket, UdpSocket sendSocket,
                              TestPacketCipher senderCipher, TestPacketCipher receiverCipher, SessionDataWriter writer,
                              WallClock clock, ClockErrorEstimate errors, Consumer<String> diagnostics) {
        UdpSocket sending = sendSocket != null ? sendSocket : socket;
        this.receiving = socket;
        int packetLength = senderCipher.senderLayout().packetLength(parameters.paddingBytes());
        log = new SendLog(parameters.packetCount(), MAX_IN_FLIGHT);
        sources = RecordSources.forPacketCount(parameters.packetCount());
        packetCountForStamps = parameters.packetCount();
        control = new SessionControl(diagnostics);
        boolean txStamps = parameters.kernelTxTimestamps() && sending.capabilities().txTimestamps();
        sender = new SessionSender(sending, senderCipher, packetLength, parameters.reflector(),
                parameters.schedule(), parameters.packetCount(), parameters.startTimeNtp(),
                parameters.lossTimeoutNtp(), new ParkThenSpinPacer(new StampWarmingPacingClock(clock), parameters.spinNs(),
                        ParkThenSpinPacer.QUARTER_INTERVAL, MEAN_CAP, COVERAGE),
                parameters.spinNs(), clock, errors, log, control);
        int bufferBytes = Math.max(packetLength, receiverCipher.reflectorLayout().length()) + 128;
        receiver = new ReplyReceiver(socket, sending, receiverCipher, bufferBytes, writer,
                sources, log, control, clock, errors, parameters.packetCount(), parameters.lossTimeoutNtp(), txStamps);
        meanIntervalNs = NtpTime.durationToNanos(parameters.schedule().meanDeltaNtp());
        receiver.gatherNs(gatherNs(meanIntervalNs, GATHER_NS), meanIntervalNs);
        spinNs = parameters.spinNs();
        wallClock = clock;
        senderThread = Thread.ofPlatform().name("twping-sender").daemon(true).unstarted(() -> {
            preciseTimers(control::diagnostic);
            pinned(sender);
            StopTrace.mark("sender-left");
        });
        receiverThread = Thread.ofPlatform().name("twping-receiver").daemon(true).unstarted(() -> {
            pinned(receiver);
            StopTrace.mark("receiver-left");
        });
    }

    /**
     * Runs the sender and receiver threads on {@code cpus} (null: wherever the system puts them); call before
     * {@link #start()}. Pinning both to one CPU keeps a woken reflector on the same host from competing with
     * them for the other (docs/PERFORMANCE.md).
     */
    public ClientTestSession cpus(BitSet cpus) {
        this.cpus = cpus == null ? null : (BitSet) cpus.clone();
        return this;
    }

    /**
     * The sender's sleeps end when asked: the kernel's default timer slack of 50 µs lets a park before the spin
     * window overshoot by that much, more than the whole window at high rates (a quarter of 100 µs at 10,000/s).
     * {@value #TIMER_SLACK_PROPERTY} sets another slack in ns (50000 is the kernel's default; measurements in
     * docs/PERFORMANCE.md, "Pacing").
     *
     * <p>And they end on a CPU soon: the sender asks for the scheduler's shortest slice ({@link ThreadTuning#sliceNs(long)},
     * Linux 6.12 and later), so that waking up it preempts a time-shared thread that runs a longer slice instead of
     * waiting, up to milliseconds, for that slice to end; the sender runs for a few µs per send, well within it.
     * On a host whose CPUs other work keeps busy this shortened the lateness tail (docs/CLIENT.md, "Timer slack and
     * slice"). {@value #SLICE_PROPERTY} sets another slice in ns, 0 keeps the default. The JIT's compiler threads
     * get the longest slice ({@link JitSlices}), so that any thread woken where one compiles, a reflector on this
     * host among them, preempts it at once.
     */
    static void preciseTimers(Consumer<String> diagnostics) {
        JitSlices.apply();
        long sliceNs = Long.getLong(SLICE_PROPERTY, ThreadTuning.MIN_SLICE_NS);
        if (sliceNs > 0 && ThreadTuning.available()) {
            try {
                ThreadTuning.sliceNs(sliceNs);
            } catch (SocketException e) {
                if (!"ENOSYS".equals(e.errnoName())) {
                    diagnostics.accept("scheduler slice: " + e.getMessage());
                }
            } catch (IllegalStateException e) {
                // a real-time or idle policy set from outside (chrt): its own rules apply, no slice
            }
        }
        long slackNs = Long.getLong(TIMER_SLACK_PROPERTY, 1);
        if (slackNs > 0 && ThreadTuning.available()) {
            try {
                ThreadTuning.timerSlackNs(slackNs);
            } catch (SocketException e) {
                diagnostics.accept("timer slack: " + e.getMessage());
            }
        }
    }

    /**
     * Runs the sender and receiver threads under SCHED_FIFO at {@code priority} (1..99; 0 = the default
     * scheduler); call before {@link #start()}. A real-time sender is not preempted by time-shared threads during
     * its spin and sleeps without timer slack, so its window may take half the interval instead of a quarter
     * (docs/PERFORMANCE.md, "Pacing"). A refusal by the kernel is reported as a diagnostic and the session runs
     * time-shared.
     */
    public ClientTestSession rtPriority(int priority) {
        if (priority < 0 || priority > 99) {
            throw new IllegalArgumentException("SCHED_FIFO priority must be 0..99: " + priority);
        }
        this.rtPriority = priority;
        sender.pacer(new ParkThenSpinPacer(new StampWarmingPacingClock(wallClock), spinNs,
                priority > 0 ? ParkThenSpinPacer.HALF_INTERVAL : ParkThenSpinPacer.QUARTER_INTERVAL, MEAN_CAP, COVERAGE));
        return this;
    }

    private void pinned(Runnable body) {
        RealtimeClock.bindThread(); // the clock's first-reading path now, not at the first packet
        BitSet c = cpus;
        if (c != null && ThreadTuning.available()) {
            try {
                ThreadTuning.pinCurrentThread(c);
            } catch (SocketException e) {
                control.diagnostic("--cpu " + ThreadTuning.format(c) + ": " + e.getMessage());
            }
        }
        int priority = rtPriority;
        if (priority > 0 && ThreadTuning.available()) {
            try {
                ThreadTuning.fifoPriority(priority);
            } catch (SocketException e) {
                control.diagnostic("--rt-priority " + priority + ": " + e.getMessage());
            }
        }
        body.run();
    }

    /**
     * Records no send lateness ({@link #latenessNs()} stays null); call before {@link #start()}. For a caller that
     * never reads it (the agent: its metrics and JSON lines come from the data file): the histogram is 28 KB per
     * session, live for the session's 10 s and so promoted, 2.8 MB of the live heap and of each round's old-generation
     * garbage with 100 targets.
     *
     * @return this session
     */
    public ClientTestSession withoutLateness() {
        recordLateness = false;
        return this;
    }

    /**
     * Sends this session's packets from {@code sharedSender}'s one thread instead of a sender thread of its own; call
     * before {@link #start()}. For a caller that runs many slow sessions at once (the agent, 10 packets/s per target
     * by default): 100 running sessions hold one sender thread instead of 100. The shared thread paces each session
     * with the session's own spin window ({@link Parameters#spinNs()}, a learnt one counting as its starting 100 µs)
     * and the same timer slack and scheduler slice as a session's own sender, and sends, stamps and skips as it does
     * (the same records and lateness); it does not yield its CPU after a send (another session's packet may be due),
     * and the session's {@link #cpus} and {@link #rtPriority} do not apply to it. Nothing allocated per packet.
     *
     * @return this session
     */
    public ClientTestSession sharedSender(SharedSender sharedSender) {
        this.shared = sharedSender;
        return this;
    }

    /** @return true once the session's own sender thread has been started (never with a {@link #sharedSender}) */
    boolean ownSenderStarted() {
        return senderThread.getState() != Thread.State.NEW;
    }

    /** Starts the receiver, then the sender. */
    public void start() {
        if (recordLateness && latenessNs == null) {
            latenessNs = new Histogram(MAX_LATENESS_NS, LATENESS_DIGITS);
            sender.recordLatenessInto(latenessNs);
        }
        started = true;
        receiverThread.start();
        if (shared != null) {
            shared.register(sender, control);
        } else {
            senderThread.start();
        }
    }

    /**
     * Waits for the session to end.
     *
     * @return true when it ended within the timeout
     */
    public boolean await(long timeoutNs) throws InterruptedException {
        return control.await(timeoutNs);
    }

    /** @return true once the session has ended. */
    public boolean isDone() {
        return control.isDone();
    }

    /**
     * Stops sending; the receiver flushes what is older than the loss timeout and ends. Any thread. The sender is
     * interrupted out of its wait for the next send time (the pacer returns at once, the sender sees the stop and
     * leaves), so that {@link #join} does not wait up to a whole send interval after a Ctrl-C.
     */
    public void cancel() {
        control.cancel();   // a shared sender is woken by the stop itself (SessionControl.onStop)
        if (shared == null) {
            senderThread.interrupt();
        }
    }

    /**
     * {@link #cancel}, and wakes the receiver out of its socket at once (the socket is shut down: {@link
     * UdpSocket#wakeup}), for a session whose socket is not used again: a warm-up's, a stopped run's. A plain cancel is
     * noticed by the receiver at its next wake-up, at most {@link ReplyReceiver#MAX_WAIT_NS} later.
     */
    public void cancelAndWake() {
        cancel();
        receiving.wakeup();
    }

    /** Waits for both threads to leave, or a shared sender to hand the session back (after {@link #await}). */
    public void join(long timeoutMs) throws InterruptedException {
        if (shared != null) {
            if (started) {
                sender.awaitSteps(timeoutMs);
            }
        } else {
            senderThread.join(timeoutMs);
        }
        receiverThread.join(timeoutMs);
    }

    /** @return how the session ended, or null while it runs. */
    public SessionOutcome outcome() {
        return control.outcome();
    }

    /** @return receiver counters (call after the session ended). */
    public ReceiverCounters counters() {
        return receiver.counters();
    }

    /** @return the shortest reply the receiver takes, in octets (RFC 5357 §4.2.1, RFC 8762 §4.3) */
    public int minimumReplyLength() {
        return receiver.minimumReplyLength();
    }

    /**
     * @return the timestamp sources and reply DSCP per data-file record; entries below the writer's
     * {@code visibleRecords()} may be read from any thread
     */
    public RecordSources recordSources() {
        return sources;
    }

    /**
     * Keeps the client's extra stamps of every reply record ({@link RecordStamps}: the scheduled time, the user-space
     * send stamp, the kernel TX stamp, the receiver's receipt) for the delay breakdown (docs/STATISTICS.md); call
     * before {@link #start()}. Off by default: the table takes 33 bytes per packet.
     */
    public ClientTestSession keepStamps() {
        if (stamps == null) {
            stamps = RecordStamps.forPacketCount(packetCountForStamps);
            receiver.keepStamps(stamps);
        }
        return this;
    }

    /**
     * As {@link #keepStamps()}, into {@code reuse} (cleared) when it holds this session's records, so that a caller
     * running sessions back to back (the agent) allocates the table once; else into a new table.
     */
    public ClientTestSession keepStamps(RecordStamps reuse) {
        if (stamps == null && reuse != null && reuse.holds(packetCountForStamps)) {
            reuse.clear();
            stamps = reuse;
            receiver.keepStamps(stamps);
        }
        return keepStamps();
    }

    /**
     * @return the client's extra stamps per data-file record, or null when not kept ({@link #keepStamps()});
     * entries below the writer's {@code visibleRecords()} may be read from any thread
     */
    public RecordStamps recordStamps() {
        return stamps;
    }

    /** @return sequence numbers the sender has handled so far (sent or skipped); any thread, a volatile read */
    public long sequencesHandled() {
        return log.published();
    }

    /** @return packets sent (call after the session ended). */
    public long sentCount() {
        return sender.sentCount();
    }

    /** @return packets not sent because they were more than the loss timeout behind schedule. */
    public long skippedCount() {
        return sender.skippedCount();
    }

    /**
     * @return how late each send was against its deadline, in ns (call after the session ended; null before
     * {@link #start()} and after {@link #withoutLateness()})
     */
    public Histogram latenessNs() {
        return latenessNs;
    }

    /**
     * @return true when the sender and receiver threads have both ended (or never started), a shared sender's part
     * included: the {@link RecordStamps}
     * they wrote may then be handed to the next session
     */
    public boolean threadsEnded() {
        boolean senderEnded = shared != null ? !started || sender.stepsEnded() : !senderThread.isAlive();
        return senderEnded && !receiverThread.isAlive();
    }

    /**
     * What to send and when.
     *
     * @param reflector          where test packets go
     * @param schedule           the send schedule keyed by the SID
     * @param packetCount        number of packets
     * @param paddingBytes       padding per sender packet
     * @param startTimeNtp       session start time (first packet at start + Δ0)
     * @param lossTimeoutNtp     loss timeout L
     * @param spinNs             busy-wait window before each send
     * @param kernelTxTimestamps use kernel TX timestamps as send times where delivered
     */
    public record Parameters(InetSocketAddress reflector, SendSchedule schedule, long packetCount, int paddingBytes,
                             long startTimeNtp, long lossTimeoutNtp, long spinNs, boolean kernelTxTimestamps) {
    }

    /**
     * The receiver's gathering window for a session of this mean send interval: {@code windowNs} when the session
     * sends no faster than 2000/s and at least two packets per window, else 0 (a timer wake-up per reply would add
     * wake-ups instead of saving them).
     */
    static long gatherNs(long meanIntervalNs, long windowNs) {
        if (windowNs <= 0 || meanIntervalNs < GATHER_MIN_INTERVAL_NS || windowNs < 2 * meanIntervalNs) {
            return 0;
        }
        return windowNs;
    }

    /** Sets the receiver's gathering window (tests); before {@link #start()}. */
    ClientTestSession receiverGatherNs(long ns) {
        receiver.gatherNs(ns, this.meanIntervalNs);
        return this;
    }

    /** @return {@code percent} when it is 1..100, else the pacer's default. */
    static int coverage(int percent) {
        return percent >= 1 && percent <= 100 ? percent : ParkThenSpinPacer.DEFAULT_COVERAGE_PERCENT;
    }
}
