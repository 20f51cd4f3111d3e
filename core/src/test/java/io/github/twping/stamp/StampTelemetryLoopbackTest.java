package io.github.twping.stamp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.twping.ffm.Timestamping;
import io.github.twping.ffm.UdpSocket;
import io.github.twping.ffm.UdpSocketOptions;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.session.SessionOutcome;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.report.extended.StampReflectorStamps;
import io.github.twping.stats.breakdown.Absence;
import io.github.twping.stats.breakdown.Component;
import io.github.twping.stats.breakdown.PacketBreakdown;
import io.github.twping.stats.breakdown.ReflectorStamps;
import io.github.twping.stats.breakdown.StampOrigin;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.NtpTime;
import io.github.twping.time.WallClock;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Our sender with every RFC 8972 TLV against our reflector on loopback: the telemetry the sender reads from the
 * replies (kernel t2 and, by Follow-Up Telemetry, kernel t3 of every reply but the last; the received DSCP; the
 * reflector's counters), with and without the authenticated format and its HMAC TLV, stateless and stateful; and
 * the delay breakdown's reflector stack (Follow-Up t3 minus the reply's t3) of every reply but the last.
 */
class StampTelemetryLoopbackTest {
    private static final int PACKETS = 40;
    private static final long INTERVAL_NTP = NtpTime.fromSeconds(0.002);
    private static final byte[] SID = new byte[16];
    private static final byte[] KEY = {9, 8, 7, 6, 5, 4, 3, 2};

    @TempDir
    Path dir;

    @Timeout(300)
    @ParameterizedTest(name = "auth={0} stateful={1} reflector={2}")
    @CsvSource({"false, false, NTP", "true, true, PTP", "true, false, NTP"})
    void everyReplyButTheLastGetsItsKernelTransmitStamp(boolean auth, boolean stateful, TimestampFormat format)
            throws Exception {
        StampReflectorSpec reflectorSpec = new StampReflectorSpec(false, auth, auth ? KEY : null, stateful, format,
                List.of(), 0, 64);
        List<String> diagnostics = new CopyOnWriteArrayList<>();
        StampTlvRequest tlvs = new StampTlvRequest(true, 34, true, 1, 1, true, auth);
        try (StampReflector reflector = new StampReflector(reflectorSpec, StampReflector.openSocket(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), null);
             UdpSocket client = UdpSocket.open(UdpSocketOptions.builder()
                     .bindAddress(InetAddress.getLoopbackAddress()).unicastTtl(255).receiveTtl(true)
                     .receiveTos(true).tos(18 << 2).timestamping(Timestamping.RX_TX_SOFTWARE).build())) {
            assumeTrue(client.isNative() && client.capabilities().txTimestamps(), "needs kernel TX timestamps");
            reflector.start();
            WallClock clock = WallClock.system();
            long startNtp = clock.nowNtp() + NtpTime.fromSeconds(0.2);
            long lossNtp = NtpTime.fromSeconds(5);
            byte[] local = client.localAddress().getAddress().getAddress();
            StampSenderSpec spec = new StampSenderSpec(auth, auth ? KEY : null, TimestampFormat.NTP, 5, 0, tlvs);
            SessionHeader header = new SessionHeader(SID, 4, local, client.localAddress().getPort(), local,
                    reflector.localAddress().getPort(), PACKETS, spec.tlvBytes(), startNtp, lossNtp, 0,
                    new boolean[] {true}, new long[] {INTERVAL_NTP}, SessionHeader.FINISHED_INCOMPLETE);
            SessionDataWriter writer = SessionDataWriter.create(dir.resolve("t.owp"), header);
            SendSchedule schedule = new SendSchedule(SID, new ScheduleSlot[] {new ScheduleSlot(true, INTERVAL_NTP)},
                    PACKETS);
            StampTelemetry telemetry = new StampTelemetry(PACKETS, tlvs);
            ClientTestSession session = StampSenderSession.create(client, reflector.localAddress(), spec, schedule,
                    PACKETS, startNtp, lossNtp, 20_000, writer, clock, ClockErrorEstimate.fromKernel(),
                    diagnostics::add, telemetry);
            session.keepStamps();
            session.start();
            assertTrue(session.await(TimeUnit.SECONDS.toNanos(60)), "session did not end");
            session.join(5_000);
            writer.close();
            assertEquals(SessionOutcome.COMPLETED, session.outcome(), diagnostics.toString());
            assertEquals(PACKETS, session.counters().received(), diagnostics::toString);
            assertEquals(PACKETS, telemetry.replies());
            assertEquals(0, telemetry.unrecognised() + telemetry.malformed() + telemetry.integrityFailed());
            assertEquals(PACKETS - 1, telemetry.followUps(), "every reply but the last is followed up");
            assertEquals(0, telemetry.followUpsUnmatched());
            for (int s = 0; s < PACKETS; s++) {
                assertEquals(StampTlv.METHOD_SW_LOCAL, telemetry.t2Method(s), "t2 kernel at " + s);
                assertEquals(s < PACKETS - 1 ? StampTlv.METHOD_SW_LOCAL : StampTlv.METHOD_USER_SPACE,
                        telemetry.t3Method(s), "t3 at " + s);
                if (s < PACKETS - 1) {
                    long lagNs = NtpTime.signedDurationToNanos(telemetry.kernelT3Ntp(s) - telemetry.userT3Ntp(s));
                    assertTrue(lagNs >= 0 && lagNs < TimeUnit.SECONDS.toNanos(1), "kernel t3 - user t3 " + lagNs);
                }
                assertEquals(18, telemetry.receivedDscp(s), "DSCP2: what our socket sent");
                assertEquals(0, telemetry.reversePath(s), "the reply carried DSCP1");
                assertEquals(s + 1, telemetry.reflectorRx(s));
                assertEquals(s + 1, telemetry.reflectorTx(s));
                assertEquals("---", telemetry.flagLetters(s));
            }
            ReflectorStamps reflectorStamps = StampReflectorStamps.of(telemetry, tlvs, false);
            try (SessionDataReader reader = SessionDataReader.open(dir.resolve("t.owp"))) {
                TwoWayRecord r = new TwoWayRecord();
                PacketBreakdown b = new PacketBreakdown();
                for (long i = 0; i < reader.recordCount(); i++) {
                    reader.read(i, r);
                    b.compute(i, r, session.recordSources().get(i), session.recordStamps(), reflectorStamps);
                    assertEquals(b.spanNs(), b.pathSumNs(), "record " + i + ": the components add up to the span");
                    assertEquals(StampOrigin.KERNEL_SOFTWARE, b.to(Component.FORWARD), "t2: the reflector's kernel");
                    assertEquals(StampOrigin.USER, b.to(Component.REFLECTOR_RESIDENCE), "t3 of the reply itself");
                    if (r.sentSeq < PACKETS - 1) {
                        long lagNs = NtpTime.toEpochNanos(telemetry.kernelT3Ntp(r.sentSeq))
                                - NtpTime.toEpochNanos(r.reflSendNtp);
                        assertEquals(lagNs, b.ns(Component.REFLECTOR_STACK), "record " + i);
                        assertEquals(StampOrigin.KERNEL_SOFTWARE, b.to(Component.REFLECTOR_STACK));
                        assertEquals(StampOrigin.KERNEL_SOFTWARE, b.from(Component.BACK), "back from the kernel t3");
                        assertTrue(Math.abs(b.roundTripNs() - b.recordRttNs()) <= 3, "record " + i);
                    } else {
                        assertEquals(Absence.FOLLOW_UP_NOT_RECEIVED, b.absence(Component.REFLECTOR_STACK));
                    }
                }
            }
        }
    }
}
