package io.github.twping.stamp;

import io.github.twping.protocol.StampLayouts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.github.twping.protocol.ReflectorPacket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.github.twping.session.ReflectorClock;
import io.github.twping.time.WallClock;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assertions;

/**
 * The synchronization-source rule of {@link ClockSyncSource} against fake {@code /dev} and {@code /proc} trees (no
 * PTP on this machine), and the sender reading a reflector's Timestamp Information fields and sub-TLVs.
 */
class ClockSyncSourceTest {
    private static final int SYNCHRONIZED = 0x8001;
    private static final int UNSYNCHRONIZED = 0x0001;

    @TempDir
    Path root;

    private Path dev;
    private Path proc;

    private void tree() throws Exception {
        dev = Files.createDirectories(root.resolve("dev"));
        proc = Files.createDirectories(root.resolve("proc"));
        process(1, "systemd", "/sbin/init");
    }

    private void process(int pid, String comm, String... argv) throws Exception {
        Path p = Files.createDirectories(proc.resolve(Integer.toString(pid)));
        Files.writeString(p.resolve("comm"), comm + "\n");
        Files.write(p.resolve("cmdline"), (String.join("\0", argv) + "\0").getBytes(StandardCharsets.UTF_8));
    }

    private boolean evidence() {
        return ClockSyncSource.ptpEvidence(ClockSyncSource.under(dev, proc));
    }

    @Test
    void phc2sysWithAPtpHardwareClockIsPtp() throws Exception {
        tree();
        assertFalse(evidence(), "nothing running");
        process(200, "phc2sys", "phc2sys", "-a", "-r");
        assertFalse(evidence(), "phc2sys without a PHC device");
        Files.createFile(dev.resolve("ptp0"));
        assertTrue(evidence(), "PHC + phc2sys");
        assertEquals(StampTlv.SYNC_PTP, ClockSyncSource.syncSource(true, SYNCHRONIZED));
        assertEquals(StampTlv.SYNC_FREE_RUNNING, ClockSyncSource.syncSource(true, UNSYNCHRONIZED),
                "PTP daemons running but the kernel calls the clock unsynchronized: free-running");
    }

    @Test
    void ptp4lAloneCountsOnlyInSoftwareMode() throws Exception {
        tree();
        Files.createFile(dev.resolve("ptp1"));
        process(300, "ptp4l", "ptp4l", "-i", "eth0");
        assertFalse(evidence(), "ptp4l steering only the PHC (no phc2sys)");
        process(301, "ptp4l", "ptp4l", "-S", "-i", "eth1");
        assertTrue(evidence(), "ptp4l -S steers the system clock");
    }

    @Test
    void otherDevicesAndProcessesAreNoEvidence() throws Exception {
        tree();
        Files.createFile(dev.resolve("ptpx"));
        Files.createFile(dev.resolve("pts"));
        process(400, "phc2sysd", "phc2sysd");
        process(401, "chronyd", "chronyd", "-S");
        assertFalse(evidence());
        assertEquals(StampTlv.SYNC_NTP, ClockSyncSource.syncSource(false, SYNCHRONIZED), "synchronized, no PTP");
        assertEquals(StampTlv.SYNC_FREE_RUNNING, ClockSyncSource.syncSource(false, UNSYNCHRONIZED));
        assertFalse(ClockSyncSource.ptpEvidence(ClockSyncSource.under(root.resolve("none"), root.resolve("none"))),
                "missing directories: no evidence, no exception");
    }

    @Test
    void reflectorWithPtpEvidenceReportsPtpWhenSynchronized() throws Exception {
        StampReflectorSpec spec = new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP,
                List.of(), 0, 16);
        for (int error : new int[] {SYNCHRONIZED, UNSYNCHRONIZED}) {
            try (StampReflector reflector = new StampReflector(spec, StampReflector.openSocket(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0),
                    ReflectorClock.of(WallClock.system(), error));
                 DatagramSocket client = new DatagramSocket(
                         new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                reflector.ptpEvidence(true).start();
                client.setSoTimeout(10_000);
                byte[] buffer = timestampInformationReply(client, reflector);
                int want = error == SYNCHRONIZED ? StampTlv.SYNC_PTP : StampTlv.SYNC_FREE_RUNNING;
                assertEquals(want, buffer[48], "Sync Src In");
                assertEquals(want, buffer[50], "Sync Src Out");
            }
        }
    }

    /** Polls {@code condition} until it holds or 30 s have passed (the refresher runs every 20 ms here). */
    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    @Test
    void refresherFollowsTheTreeUntilClosed() throws Exception {
        tree();
        AtomicInteger answer = new AtomicInteger(-1);
        ClockSyncSource.Refresher r = ClockSyncSource.refresh(ClockSyncSource.under(dev, proc), 20_000_000L,
                e -> answer.set(e ? 1 : 0));
        try {
            assertEquals(0, answer.get(), "the first lookup is made before refresh returns");
            assertTrue(r.lookups() >= 1);
            process(200, "phc2sys", "phc2sys", "-a", "-r");
            Files.createFile(dev.resolve("ptp0"));
            assertTrue(eventually(() -> answer.get() == 1), "phc2sys started later is seen");
            try (var files = Files.walk(proc.resolve("200"))) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            assertTrue(eventually(() -> answer.get() == 0), "phc2sys ended is seen");
        } finally {
            r.close();
        }
        assertFalse(r.running(), "closed: its thread has ended");
        long after = r.lookups();
        process(201, "ptp4l", "ptp4l", "-S");
        assertEquals(after, r.lookups(), "no lookup after close");
        assertEquals(0, answer.get());
        assertTrue(ClockSyncSource.REFRESH_PERIOD_NS == 10_000_000_000L, "the documented period (docs/STAMP.md)");
        Assertions.assertThrows(IllegalArgumentException.class,
                () -> ClockSyncSource.refresh(ClockSyncSource.under(dev, proc), 0, e -> { }));
    }

    @Test
    void runningReflectorReportsTheRefreshedSource() throws Exception {
        tree();
        StampReflectorSpec spec = new StampReflectorSpec(false, false, null, false, TimestampFormat.NTP,
                List.of(), 0, 16);
        try (StampReflector reflector = new StampReflector(spec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0),
                ReflectorClock.of(WallClock.system(), SYNCHRONIZED));
             ClockSyncSource.Refresher refresher = ClockSyncSource.refresh(ClockSyncSource.under(dev, proc),
                     20_000_000L, reflector::ptpEvidence);
             DatagramSocket client = new DatagramSocket(
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            reflector.start();
            client.setSoTimeout(10_000);
            assertEquals(StampTlv.SYNC_NTP, syncSourceIn(client, reflector), "no PTP evidence yet");
            process(300, "ptp4l", "ptp4l", "-S", "-i", "eth0");
            assertTrue(eventually(() -> {
                try {
                    return syncSourceIn(client, reflector) == StampTlv.SYNC_PTP;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }), "ptp4l -S started while the reflector runs: PTP in the replies");
            assertTrue(refresher.lookups() >= 2);
        }
    }

    /** Sends one unauthenticated request with a Timestamp Information TLV; @return the reply's bytes */
    private static byte[] timestampInformationReply(DatagramSocket client, StampReflector reflector)
            throws Exception {
        byte[] request = new byte[44 + 8];
        ByteBuffer.wrap(request).put(44, (byte) StampTlv.FLAG_U).put(45, (byte) StampTlv.TIMESTAMP_INFORMATION)
                .putShort(46, (short) 4);
        client.send(new DatagramPacket(request, request.length, reflector.localAddress()));
        byte[] buffer = new byte[128];
        client.receive(new DatagramPacket(buffer, buffer.length));
        return buffer;
    }

    /** One request with a Timestamp Information TLV; @return the reply's Sync Src In */
    private static int syncSourceIn(DatagramSocket client, StampReflector reflector) throws Exception {
        byte[] buffer = timestampInformationReply(client, reflector);
        assertEquals(buffer[48], buffer[50], "Sync Src In and Out");
        return buffer[48];
    }

    @Test
    void senderReadsTheTimestampInformationFieldsAndCountsSubTlvs() {
        StampTlvRequest ts = new StampTlvRequest(true, -1, false, -1, 0, false, false);
        StampTelemetry telemetry = new StampTelemetry(8, ts);
        StampSenderCodec codec = new StampSenderCodec(new StampSenderSpec(false, null, TimestampFormat.NTP, 0, 0,
                ts), telemetry);
        for (int seq = 0; seq < 3; seq++) {
            // a reply whose Timestamp Information carries two sub-TLVs (8 and 0 octets) after its four fields
            int tlvLength = 4 + (4 + 8) + 4;
            MemorySegment reply = MemorySegment.ofArray(new byte[44 + 4 + tlvLength]);
            new ReflectorPacket(StampLayouts.UNAUTHENTICATED_REFLECTOR).wrap(reply).clearMbz().sequenceNumber(seq)
                    .senderSequenceNumber(seq).errorEstimate(1).senderErrorEstimate(1);
            ByteBuffer b = ByteBuffer.wrap((byte[]) reply.heapBase().orElseThrow());
            b.put(45, (byte) StampTlv.TIMESTAMP_INFORMATION).putShort(46, (short) tlvLength);
            b.put(48, (byte) StampTlv.SYNC_PTP).put(49, (byte) StampTlv.METHOD_HW_ASSIST)
                    .put(50, (byte) StampTlv.SYNC_PTP).put(51, (byte) (seq == 2 ? StampTlv.METHOD_SW_LOCAL
                            : StampTlv.METHOD_HW_ASSIST));
            b.put(53, (byte) 1).putShort(54, (short) 8);
            b.put(65, (byte) 2).putShort(66, (short) 0);
            assertTrue(codec.openReflector(reply, (int) reply.byteSize()));
        }
        assertEquals(StampTlv.SYNC_PTP, telemetry.syncIn());
        assertEquals(StampTlv.SYNC_PTP, telemetry.syncOut());
        assertEquals(StampTlv.METHOD_HW_ASSIST, telemetry.lastMethodIn());
        assertEquals(StampTlv.METHOD_SW_LOCAL, telemetry.lastMethodOut());
        assertEquals(3, telemetry.timestampInformations());
        assertEquals(6, telemetry.timestampSubTlvs());
        assertEquals(1, telemetry.methodChanges(), "Timestamp Out changed once");
        assertEquals(StampTlv.METHOD_HW_ASSIST, telemetry.t2Method(0));
        assertEquals(StampTlv.METHOD_SW_LOCAL, telemetry.t3Method(2));
    }
}
