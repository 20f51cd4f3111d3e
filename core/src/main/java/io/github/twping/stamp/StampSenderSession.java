package io.github.twping.stamp;

import java.net.InetSocketAddress;
import java.util.function.Consumer;

import io.github.twping.ffm.UdpSocket;
import io.github.twping.schedule.SendSchedule;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ClockErrorEstimate;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.time.WallClock;
import io.github.twping.protocol.Mode;

/**
 * Assembles a STAMP (or TWAMP-Light) Session-Sender from the TWAMP client's engine: {@link ClientTestSession} with
 * the sender and receiver threads, absolute-deadline pacing, kernel RX/TX timestamps and the session data file,
 * over the STAMP layouts through two {@link StampSenderCodec}s (one per thread).
 */
public final class StampSenderSession {
    private StampSenderSession() {
    }

    /**
     * @param reflector      where the test packets go
     * @param spec           the packet format
     * @param schedule       the send schedule
     * @param packetCount    packets to send
     * @param startTimeNtp   time of the first slot
     * @param lossTimeoutNtp loss timeout
     * @param spinNs         busy-wait window before each send
     */
    public static ClientTestSession create(UdpSocket socket, InetSocketAddress reflector, StampSenderSpec spec,
                                           SendSchedule schedule, long packetCount, long startTimeNtp,
                                           long lossTimeoutNtp, long spinNs, SessionDataWriter writer,
                                           WallClock clock, ClockErrorEstimate errors, Consumer<String> diagnostics) {
        return create(socket, reflector, spec, schedule, packetCount, startTimeNtp, lossTimeoutNtp, spinNs, writer,
                clock, errors, diagnostics, null);
    }

    /**
     * As {@link #create(UdpSocket, InetSocketAddress, StampSenderSpec, SendSchedule, long, long, long, long,
     * SessionDataWriter, WallClock, ClockErrorEstimate, Consumer)}, the replies' TLVs read into {@code telemetry}
     * (null: not kept); read it after {@link ClientTestSession#join}.
     */
    public static ClientTestSession create(UdpSocket socket, InetSocketAddress reflector, StampSenderSpec spec,
                                           SendSchedule schedule, long packetCount, long startTimeNtp,
                                           long lossTimeoutNtp, long spinNs, SessionDataWriter writer,
                                           WallClock clock, ClockErrorEstimate errors, Consumer<String> diagnostics,
                                           StampTelemetry telemetry) {
        ClientTestSession.Parameters parameters = new ClientTestSession.Parameters(reflector, schedule, packetCount,
                spec.tlvBytes(), startTimeNtp, lossTimeoutNtp, spinNs, true);
        return new ClientTestSession(parameters, socket, new StampSenderCodec(spec),
                new StampSenderCodec(spec, telemetry), writer, clock, errors, diagnostics);
    }

    /** A TWAMP-Light sender (RFC 5357 Appendix I): the open-mode TWAMP-Test layouts, {@code padding} octets. */
    public static ClientTestSession createLight(UdpSocket socket, InetSocketAddress reflector, int padding,
                                                SendSchedule schedule, long packetCount, long startTimeNtp,
                                                long lossTimeoutNtp, long spinNs, SessionDataWriter writer,
                                                WallClock clock, ClockErrorEstimate errors,
                                                Consumer<String> diagnostics) {
        return createLight(socket, reflector, padding, schedule, packetCount, startTimeNtp, lossTimeoutNtp, spinNs,
                writer, clock, errors, diagnostics, null);
    }

    /**
     * A TWAMP-Light sender; with {@code key} (null: open) the authenticated TWAMP-Test packets of RFC 5357
     * §4.1.2/§4.2.1 with the test keys of {@link StampReflectorSpec#lightKeys} instead of a control session's.
     */
    public static ClientTestSession createLight(UdpSocket socket, InetSocketAddress reflector, int padding,
                                                SendSchedule schedule, long packetCount, long startTimeNtp,
                                                long lossTimeoutNtp, long spinNs, SessionDataWriter writer,
                                                WallClock clock, ClockErrorEstimate errors,
                                                Consumer<String> diagnostics, byte[] key) {
        ClientTestSession.Parameters parameters = new ClientTestSession.Parameters(reflector, schedule, packetCount,
                padding, startTimeNtp, lossTimeoutNtp, spinNs, true);
        if (key == null) {
            return new ClientTestSession(parameters, socket, Mode.OPEN, null, writer, clock,
                    errors, diagnostics);
        }
        return new ClientTestSession(parameters, socket, Mode.AUTHENTICATED,
                StampReflectorSpec.lightKeys(key), writer, clock, errors, diagnostics);
    }
}
