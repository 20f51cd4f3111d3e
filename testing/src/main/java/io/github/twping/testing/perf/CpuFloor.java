package io.github.twping.testing.perf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.twping.ffm.ReceivedPacket;
import io.github.twping.ffm.SocketException;
import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.TxTimestampHandler;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;

/**
 * The JVM's floor for a TWAMP client's per-packet work (issue 23): what a sender and a receiver must do, and nothing
 * else, through this project's {@link UdpSocket}: a 41-byte packet with a sequence number and a send time, sent at its
 * scheduled moment with a kernel TX timestamp (read back from the sending socket's error queue), the reply received
 * with its kernel RX timestamp and matched to its packet (round trip kept in an array). No TWAMP control, no data
 * file, no statistics, no spin before a send. Two sockets on one port as the client uses them (the receiving one
 * connected to the reflector, the sending one dropping what arrives), against any UDP echo.
 *
 * <p>Two shapes: {@code one} (one thread sends, then waits in the receive call for the reply or the next send time,
 * as C's twping does) and {@code two} (a sender thread that parks until each send time and a receiver thread that
 * blocks in the receive call with a constant timeout, as our client does).
 *
 * <pre>CpuFloor one|two HOST:PORT COUNT INTERVAL_US [exp] [LOSS_MS]</pre>
 *
 * Prints one line of {@code key=value}: packets, replies, the CPU of the session (process CPU from its start to its
 * end, ms), of the engine threads (their own CPU clocks, ms) and of the JVM's thread groups at exit (from
 * /proc/self/task, ms), and VmHWM (max RSS, kB).
 */
public final class CpuFloor {
    private static final int PACKET_BYTES = 41;
    private static final long TICK_NS = 20_000_000L;

    private final UdpSocket receiving;
    private final UdpSocket sending;
    private final InetSocketAddress reflector;
    private final int count;
    private final long intervalNs;
    private final boolean exponential;
    private final long lossNs;
    private final MemorySegment out;
    private final MemorySegment in;
    private final ReceivedPacket meta = new ReceivedPacket();
    private final long[] sendEpochNs;
    private final long[] txEpochNs;
    private final long[] rttNs;
    private final TxTimestampHandler txHandler;
    private long replies;
    private volatile long sentCount;
    private volatile long lastSendNanoTime;
    private long senderCpuNs;
    private long receiverCpuNs;

    private CpuFloor(InetSocketAddress reflector, int count, long intervalNs, boolean exponential, long lossNs)
            throws SocketException {
        this.reflector = reflector;
        this.count = count;
        this.intervalNs = intervalNs;
        this.exponential = exponential;
        this.lossNs = lossNs;
        InetAddress local = InetAddress.getLoopbackAddress();
        receiving = UdpSocket.open(UdpSocketOptions.builder().bindAddress(local).unicastTtl(255).receiveTtl(true)
                .receiveTos(true).reusePort(true).timestamping(Timestamping.RX_TX_SOFTWARE).build());
        sending = UdpSocket.open(UdpSocketOptions.builder().bindAddress(local).port(receiving.localAddress().getPort())
                .reusePort(true).dropReceived(true).unicastTtl(255).timestamping(Timestamping.RX_TX_SOFTWARE).build());
        receiving.connect(reflector);
        Arena arena = Arena.global();
        out = arena.allocate(PACKET_BYTES, 8);
        in = arena.allocate(2048, 8);
        sendEpochNs = new long[count];
        txEpochNs = new long[count];
        rttNs = new long[count];
        long idBase = sending.sentPacketCount();
        txHandler = (packetId, epochNs, hardware) -> {
            long seq = packetId - idBase;
            if (seq >= 0 && seq < count) {
                txEpochNs[(int) seq] = epochNs;
            }
        };
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: CpuFloor one|two HOST:PORT COUNT INTERVAL_US [exp] [LOSS_MS]");
            System.exit(2);
        }
        String shape = args[0];
        int colon = args[1].lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(args[1].substring(0, colon)),
                Integer.parseInt(args[1].substring(colon + 1)));
        int count = Integer.parseInt(args[2]);
        long intervalNs = Long.parseLong(args[3]) * 1000;
        boolean exp = args.length > 4 && args[4].equals("exp");
        long lossNs = (args.length > 5 ? Long.parseLong(args[5]) : 1000) * 1_000_000L;
        CpuFloor floor = new CpuFloor(target, count, intervalNs, exp, lossNs);
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long wall0 = System.nanoTime();
        switch (shape) {
            case "one" -> floor.runOneThread();
            case "two" -> floor.runTwoThreads();
            default -> {
                System.err.println("CpuFloor: shape one or two");
                System.exit(2);
            }
        }
        long sessionCpuNs = os.getProcessCpuTime() - cpu0;
        long wallNs = System.nanoTime() - wall0;
        StringBuilder line = new StringBuilder();
        line.append(String.format(Locale.ROOT,
                "shape=%s packets=%d replies=%d session_wall_ms=%d session_cpu_ms=%d sender_ms=%d receiver_ms=%d"
                        + " rtt_median_us=%.1f",
                shape, floor.sentCount, floor.replies, wallNs / 1_000_000, sessionCpuNs / 1_000_000,
                floor.senderCpuNs / 1_000_000, floor.receiverCpuNs / 1_000_000, floor.medianRttUs()));
        for (Map.Entry<String, Long> e : threadGroupsMs().entrySet()) {
            line.append(' ').append("threads_").append(e.getKey()).append("_ms=").append(e.getValue());
        }
        line.append(" vmhwm_kb=").append(statusKb("VmHWM"));
        System.out.println(line);
        floor.receiving.close();
        floor.sending.close();
    }

    private double medianRttUs() {
        long[] got = new long[(int) Math.min(replies, count)];
        int k = 0;
        for (long r : rttNs) {
            if (r > 0 && k < got.length) {
                got[k++] = r;
            }
        }
        if (k == 0) {
            return 0;
        }
        java.util.Arrays.sort(got, 0, k);
        return got[k / 2] / 1000.0;
    }

    private long nextGapNs() {
        if (!exponential) {
            return intervalNs;
        }
        return (long) (-Math.log(1.0 - ThreadLocalRandom.current().nextDouble()) * intervalNs);
    }

    /** Writes the packet of {@code seq} and sends it with a kernel TX timestamp. */
    private void send(int seq) throws SocketException {
        long now = System.currentTimeMillis() * 1_000_000L;   // the send time the packet carries (a field, as TWAMP's)
        out.set(ValueLayout.JAVA_INT_UNALIGNED, 0, seq);
        out.set(ValueLayout.JAVA_LONG_UNALIGNED, 4, now);
        sendEpochNs[seq] = now;
        sending.sendStamped(out, PACKET_BYTES, reflector);
        sentCount = seq + 1;
        lastSendNanoTime = System.nanoTime();
    }

    /** One receive with {@code timeoutNs}, then the TX stamps; the reply matched to its packet. */
    private boolean receiveOne(long timeoutNs) throws SocketException {
        int n = receiving.receive(in, meta, timeoutNs);
        sending.pollTxTimestampsBatched(txHandler);
        if (n == UdpSocket.CLOSED) {
            return false;
        }
        if (n >= PACKET_BYTES) {
            int seq = in.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
            if (seq >= 0 && seq < count && rttNs[seq] == 0) {
                long tx = txEpochNs[seq] > 0 ? txEpochNs[seq] : sendEpochNs[seq];
                rttNs[seq] = Math.max(1, meta.rxTimestampEpochNs() - tx);
                replies++;
            }
        }
        return true;
    }

    private boolean done(long now) {
        return sentCount == count && (replies == count || now - lastSendNanoTime >= lossNs);
    }

    private void runOneThread() throws InterruptedException {
        Thread t = Thread.ofPlatform().name("floor-engine").start(() -> {
            try {
                long next = System.nanoTime() + TICK_NS;
                int seq = 0;
                while (true) {
                    long now = System.nanoTime();
                    if (seq < count && now - next >= 0) {
                        send(seq++);
                        next += nextGapNs();
                        continue;
                    }
                    if (done(now)) {
                        break;
                    }
                    long wait = seq < count ? next - now : lossNs - (now - lastSendNanoTime);
                    if (!receiveOne(Math.max(1_000, Math.min(wait, TICK_NS)))) {
                        break;
                    }
                }
            } catch (IOException e) {
                System.err.println("CpuFloor: " + e.getMessage());
            }
            senderCpuNs = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        });
        t.join();
    }

    private void runTwoThreads() throws InterruptedException {
        Thread receiver = Thread.ofPlatform().name("floor-receiver").start(() -> {
            try {
                while (!done(System.nanoTime())) {
                    if (!receiveOne(TICK_NS)) {
                        break;
                    }
                }
            } catch (IOException e) {
                System.err.println("CpuFloor: " + e.getMessage());
            }
            receiverCpuNs = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        });
        Thread sender = Thread.ofPlatform().name("floor-sender").start(() -> {
            try {
                long next = System.nanoTime() + TICK_NS;
                for (int seq = 0; seq < count; seq++) {
                    for (long wait = next - System.nanoTime(); wait > 0; wait = next - System.nanoTime()) {
                        LockSupport.parkNanos(wait);
                    }
                    send(seq);
                    next += nextGapNs();
                }
            } catch (IOException e) {
                System.err.println("CpuFloor: " + e.getMessage());
            }
            senderCpuNs = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        });
        sender.join();
        receiver.join();
    }

    /** CPU (user + system) of the live threads of this JVM, ms, grouped by the kind their names tell. */
    private static Map<String, Long> threadGroupsMs() throws IOException {
        Map<String, Long> groups = new TreeMap<>();
        long hz = 100;                                       // USER_HZ on Linux
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue;                                // the thread ended meanwhile
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                String name = stat.substring(open + 1, close);
                String[] f = stat.substring(close + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);   // utime, stime (fields 14 and 15)
                String group = name.startsWith("C1 Compiler") ? "jit_c1" : name.startsWith("C2 Compiler") ? "jit_c2"
                        : name.equals("java") || name.equals("main") ? "main"
                        : name.startsWith("VM Thread") || name.startsWith("GC") ? "vm_gc" : "other";
                groups.merge(group, ticks * 1000 / hz, Long::sum);
            }
        }
        return groups;
    }

    private static long statusKb(String key) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith(key + ":")) {
                return Long.parseLong(l.substring(key.length() + 1).replace("kB", "").trim());
            }
        }
        return -1;
    }
}
