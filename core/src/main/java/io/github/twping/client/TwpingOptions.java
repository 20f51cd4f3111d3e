package io.github.twping.client;

import io.github.twping.config.PortRange;
import io.github.twping.config.ScheduleSpec;
import io.github.twping.pacing.ParkThenSpinPacer;
import io.github.twping.report.extended.ResultOptions;
import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.stamp.StampTlvRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;

/**
 * Everything a twping run needs, parsed and validated from argv by {@link TwpingArgs}; the engine never
 * sees {@code String[]}. Values are final: post-parse interactions (docs/CLI.md), identity dropping and the
 * default padding (docs/PROTOCOL-TEST.md) have already been applied.
 *
 * @param testAddress   testaddr (destination of test packets); null only with {@code --loopback} or
 *                      {@code --probe-timestamping} without an address
 * @param serverAddress servaddr (TWAMP-Control server); equals {@code testAddress} when not given
 * @param test          what to send
 * @param connection    how to connect
 * @param output        what to print
 * @param extras        options of this port that C twping does not have
 * @param stamp         {@code --stamp} / {@code --light}: a test without control connection (docs/STAMP.md)
 */
public record TwpingOptions(HostPort testAddress, HostPort serverAddress, Test test, Connection connection,
                            Output output, Extras extras, Stamp stamp) {

    /** Options of a TWAMP run (no {@code --stamp} / {@code --light}). */
    public TwpingOptions(HostPort testAddress, HostPort serverAddress, Test test, Connection connection,
                         Output output, Extras extras) {
        this(testAddress, serverAddress, test, connection, output, extras, Stamp.NONE);
    }

    /** @return a copy with other test and server addresses (e.g. the embedded server of {@code --loopback}). */
    public TwpingOptions withAddresses(HostPort test, HostPort server) {
        return new TwpingOptions(test, server, this.test, connection, output, extras, stamp);
    }

    /** Which protocol a run speaks. */
    public enum TestProtocol {
        /** TWAMP: TWAMP-Control, then TWAMP-Test (RFC 5357). */
        TWAMP,
        /** STAMP (RFC 8762, RFC 8972), no control connection. */
        STAMP,
        /** TWAMP-Light (RFC 5357 Appendix I), no control connection. */
        LIGHT
    }

    /**
     * A STAMP or TWAMP-Light run (docs/STAMP.md).
     *
     * @param protocol      TWAMP (none of this applies), STAMP or LIGHT
     * @param ptp           {@code --ptp}: the sender's timestamps in the PTPv2 format (Z flag)
     * @param ssid          {@code --ssid}: the Session-Sender Identifier (RFC 8972 §3), 0 when not given
     * @param authenticated the authenticated STAMP format (a key from {@code -u}/{@code -k}, {@code -A} without O)
     * @param tlvs          {@code --tlv}: the RFC 8972 TLVs besides Extra Padding (STAMP only)
     * @param tlvPackets    {@code --tlv-packets}: the TLV report has one line per packet
     */
    public record Stamp(TestProtocol protocol, boolean ptp, int ssid, boolean authenticated,
                        StampTlvRequest tlvs, boolean tlvPackets, int ecn) {
        /** A TWAMP run. */
        public static final Stamp NONE = new Stamp(TestProtocol.TWAMP, false, 0, false);

        public Stamp {
            if (tlvs == null) {
                tlvs = StampTlvRequest.NONE;
            }
            if (ecn < 0 || ecn > 3) {
                throw new IllegalArgumentException("ECN out of range (0..3): " + ecn);
            }
        }

        /** A run whose test packets carry ECN 0 (Not-ECT). */
        public Stamp(TestProtocol protocol, boolean ptp, int ssid, boolean authenticated,
                     StampTlvRequest tlvs, boolean tlvPackets) {
            this(protocol, ptp, ssid, authenticated, tlvs, tlvPackets, 0);
        }

        /** A run without TLVs besides Extra Padding. */
        public Stamp(TestProtocol protocol, boolean ptp, int ssid, boolean authenticated) {
            this(protocol, ptp, ssid, authenticated, null, false);
        }

        /** @return true for STAMP or TWAMP-Light. */
        public boolean enabled() {
            return protocol != TestProtocol.TWAMP;
        }
    }

    /** The control service port used when servaddr has no port: {@code servaddr}'s port or "862". */
    public String controlService() {
        return serverAddress.serviceOr(HostPort.DEFAULT_CONTROL_PORT);
    }

    /**
     * Test-session options.
     *
     * @param packetCount        {@code -c}, uint32 (0 is accepted by the parser), default 100
     * @param schedule           {@code -i}, default one exponential slot of float 0.1 s
     * @param lossTimeoutSeconds {@code -L}; 0 = default (control RTT bound + 2 s)
     * @param paddingBytes       padding per packet, 0..65000: {@code -s} clamped, or the default of docs/PROTOCOL-TEST.md
     * @param paddingGiven       true when {@code -s} set it (a value of 4294967295 counts as not given)
     * @param startDelaySeconds  {@code -z}, default 0
     * @param endDelaySeconds    {@code -E}, parsed and ignored (as in C), default 1.0
     * @param dscp               {@code -D}, 0..63, default 0
     * @param portRange          {@code -P}, default 8760-9960
     * @param saveFile           {@code -F} path, or null
     */
    public record Test(long packetCount, ScheduleSpec schedule, double lossTimeoutSeconds, int paddingBytes,
                       boolean paddingGiven, double startDelaySeconds, double endDelaySeconds, int dscp,
                       PortRange portRange, String saveFile) {
        /** @return the schedule slots (a new array each call) */
        public ScheduleSlot[] scheduleSlots() {
            return schedule.slots();
        }
    }

    /**
     * Control-connection options.
     *
     * @param modeMask      requested modes (a {@code protocol.Mode} mask): {@code -A}, else 15 with an identity, else 1
     * @param identity      {@code -u} KeyID, null if not given or dropped (no pass-phrase); the control
     *                      layer truncates it to 80 bytes for the KeyID field
     * @param passphrase    pass-phrase bytes, null exactly when {@code identity} is null
     * @param sourceAddress {@code -S} address or interface name, or null
     * @param bindInterface {@code -B} interface (truncated to 16 characters), or null
     * @param zeroAddresses {@code -Z}
     * @param family        {@code -4} / {@code -6}
     */
    public record Connection(int modeMask, String identity, byte[] passphrase, String sourceAddress,
                             String bindInterface, boolean zeroAddresses, AddressFamily family) {
        /** Size of the KeyID field of Set-Up-Response; longer identities are cut (C behaviour). */
        public static final int KEY_ID_BYTES = 80;

        /** @return a copy of the pass-phrase, or null */
        @Override
        public byte[] passphrase() {
            return passphrase == null ? null : passphrase.clone();
        }

        /** @return the identity as sent in the KeyID field: UTF-8, at most 80 bytes (null without identity) */
        public byte[] keyIdBytes() {
            if (identity == null) {
                return null;
            }
            byte[] bytes = identity.getBytes(StandardCharsets.UTF_8);
            return bytes.length <= KEY_ID_BYTES ? bytes : Arrays.copyOf(bytes, KEY_ID_BYTES);
        }
    }

    /** Address families allowed by {@code -4}/{@code -6}. */
    public enum AddressFamily { ANY, IPV4_ONLY, IPV6_ONLY }

    /**
     * Output options.
     *
     * @param raw                {@code -R} raw records
     * @param machine            {@code -M} machine summary (cleared by {@code -Q}/{@code -R})
     * @param quiet              {@code -Q}, also set by {@code -R}
     * @param verbose            {@code -v} per-packet lines (cleared by quiet or {@code -M})
     * @param recordLimit        N of {@code -vN}: records processed for the summaries and {@code -v} lines
     *                           (0 = all); stays in force when {@code verbose} was cleared (C quirk:
     *                           {@code -M -v5} summarises 5 records) but does not limit {@code -R} raw output
     * @param unixTimestamps     {@code -U}
     * @param units              {@code -n}: 'n', 'u', 'm' (default) or 's' (lower case)
     * @param percentiles        {@code -a} list as 32-bit floats (empty if none)
     * @param bucketWidthSeconds {@code -b}, float, default 0.0001
     * @param subsessionPackets  {@code -N}, 0 = off
     * @param summaryFiles       {@code -p}
     * @param summaryDirectory   {@code -d}, or null (current directory)
     */
    public record Output(boolean raw, boolean machine, boolean quiet, boolean verbose, long recordLimit,
                         boolean unixTimestamps, char units, float[] percentiles, float bucketWidthSeconds,
                         long subsessionPackets, boolean summaryFiles, String summaryDirectory) {
        /** @return a copy of the percentile list */
        @Override
        public float[] percentiles() {
            return percentiles.clone();
        }
    }

    /**
     * Options of this port (long options).
     *
     * @param spinMicros             {@code --spin}: busy-wait window before each send in µs (capped at a quarter of the interval), or {@link #AUTO_SPIN} for {@code auto}, the default
     * @param assumeSynchronised     {@code --sync} (also set by {@code --esterror})
     * @param esterrorMicros         {@code --esterror}, or -1 when not given
     * @param language               {@code --lang}: "en" (default) or "ru"
     * @param loopback               {@code --loopback}: test against an in-process server
     * @param probeTimestamping      {@code --probe-timestamping}: report kernel timestamping and exit
     * @param maxLossPercent         {@code --max-loss} gate, or NaN
     * @param maxMedianRttMillis     {@code --max-median-rtt} gate, or NaN
     * @param controlTimeoutSeconds  {@code --timeout} for control I/O, or 0 for none
     * @param results                the result outputs ({@code --exact}, {@code --json}, ... {@code --report})
     * @param cpus                   {@code --cpu}: the CPUs the sender and receiver threads run on, or null
     * @param kernelSendStamps       {@code --send-stamp kernel} (default): the kernel TX timestamp is the send time
     *                               where the kernel gives one; {@code user}: the stamp written into the packet
     * @param rtPriority             {@code --rt-priority}: SCHED_FIFO priority of the sender and receiver threads,
     *                               0 = the default time-sharing scheduler
     */
    public record Extras(long spinMicros, boolean assumeSynchronised, long esterrorMicros, String language,
                         boolean loopback, boolean probeTimestamping, double maxLossPercent,
                         double maxMedianRttMillis, double controlTimeoutSeconds, ResultOptions results,
                         BitSet cpus, boolean kernelSendStamps, int rtPriority) {
        /** {@code --spin auto}: the window learnt from the wake-ups (pacing.ParkThenSpinPacer#ADAPTIVE). */
        public static final long AUTO_SPIN = -1;
        /**
         * Default {@code --spin}: {@code auto}, at most the former fixed default of 100 µs and usually a few tens of
         * µs (docs/notes/2026-12-04-lean-cpu.md).
         */
        public static final long DEFAULT_SPIN_MICROS = AUTO_SPIN;

        /** @return the sender's spin window in ns for the pacer, or {@link ParkThenSpinPacer#ADAPTIVE}. */
        public long spinNs() {
            return spinMicros == AUTO_SPIN ? ParkThenSpinPacer.ADAPTIVE
                    : TimeUnit.MICROSECONDS.toNanos(spinMicros);
        }
    }
}
