package io.github.twping.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.twping.client.HostPort;
import io.github.twping.config.PassphraseStore;
import io.github.twping.getopt.GetOpt;
import io.github.twping.stamp.ClockSyncSource;
import io.github.twping.stamp.SourceNetwork;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.stamp.StampReflector;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.StampReflectorWarmUp;
import io.github.twping.stamp.StampWarmUpResult;
import io.github.twping.stamp.TimestampFormat;
import io.github.twping.ffm.SocketException;
import io.github.twping.metrics.StampReflectorMetrics;
import java.io.ByteArrayOutputStream;

/**
 * {@code twampd --stamp ADDR[:PORT]} and {@code twampd --light ADDR[:PORT]}: a STAMP or TWAMP-Light
 * Session-Reflector with no control server, in the foreground, until {@link #stop()} (SIGTERM, SIGINT, SIGHUP
 * through twampd's shutdown hook). Options and messages in docs/CLI.md, protocol in docs/STAMP.md. Bad options
 * print one line and the usage text (exit 1); a port that cannot be bound prints one line (exit 1).
 */
final class StampReflectorMain {
    /** The options of {@code --stamp}/{@code --light}, also listed by {@code twampd -h}. */
    static final String OPTIONS = """
               --stateful        Own sequence numbers per session (RFC 8762 section 4.3), else copy the sender's
               --ptp             Timestamps in the PTPv2 format (Z flag), else NTP
               --allow net       Answer only sources in net (addr/bits); repeatable
               --rate n          At most n replies per second per source address and port
               --asymmetric      With --light: replies of the base size (41, 112 authenticated) plus
                                 --reflect-octets, not the request's size
               --reflect-octets n  With --light: copy n octets of the sender's padding into the reply (RFC 6038)
               --member-link id  With --stamp: this reflector's member link identifier 1..65535 for the
                                 Micro-session ID TLV (RFC 9534); without it that TLV is answered with U
               --strict          With --stamp: drop requests shorter than 44 octets (112 authenticated)
                                 instead of answering them with a base packet (RFC 8762 section 4.6)
               -a authmode       [A]uthenticated (needs -u and -k) or [O]pen (default)
               -u identity       Identity whose pass-phrase in the key file is the HMAC key
               -k keyfile        Key file (pfs format: identity hex-pass-phrase)
               -Z                Run in the foreground (as TWAMP twampd's -Z; it always does)
               -v                Print what the start-up warm-up did, and the counters when it stops
               --metrics-listen addr:port  Prometheus metrics on http://addr:port/metrics
            """;

    static final String USAGE = """
            Usage: twampd --stamp addr[:port] [options]
                   twampd --light addr[:port] [options]
            Where "options" are:

            """ + OPTIONS + """
               -h                Print this message and exit
            """;

    private static final int OPT_STAMP = 300;
    private static final int OPT_LIGHT = 301;
    private static final int OPT_STATEFUL = 302;
    private static final int OPT_PTP = 303;
    private static final int OPT_ALLOW = 304;
    private static final int OPT_RATE = 305;
    private static final int OPT_ASYMMETRIC = 306;
    private static final int OPT_REFLECT_OCTETS = 307;
    private static final int OPT_MEMBER_LINK = 308;
    private static final int OPT_STRICT = 309;
    private static final List<GetOpt.LongOption> LONG_OPTIONS = List.of(
            new GetOpt.LongOption("stamp", GetOpt.ArgKind.REQUIRED, OPT_STAMP),
            new GetOpt.LongOption("light", GetOpt.ArgKind.REQUIRED, OPT_LIGHT),
            new GetOpt.LongOption("stateful", GetOpt.ArgKind.NONE, OPT_STATEFUL),
            new GetOpt.LongOption("ptp", GetOpt.ArgKind.NONE, OPT_PTP),
            new GetOpt.LongOption("allow", GetOpt.ArgKind.REQUIRED, OPT_ALLOW),
            new GetOpt.LongOption("rate", GetOpt.ArgKind.REQUIRED, OPT_RATE),
            new GetOpt.LongOption("asymmetric", GetOpt.ArgKind.NONE, OPT_ASYMMETRIC),
            new GetOpt.LongOption("reflect-octets", GetOpt.ArgKind.REQUIRED, OPT_REFLECT_OCTETS),
            new GetOpt.LongOption("member-link", GetOpt.ArgKind.REQUIRED, OPT_MEMBER_LINK),
            new GetOpt.LongOption("strict", GetOpt.ArgKind.NONE, OPT_STRICT));

    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile StampReflector reflector;
    private volatile StampWarmUpResult warmUp;
    private volatile StampReflectorMetrics metrics;

    /** Counts into {@code m} ({@code --metrics-listen}); set before {@link #execute}. */
    void metrics(StampReflectorMetrics m) {
        this.metrics = m;
    }

    /** @return true when argv asks for a STAMP or TWAMP-Light reflector (any {@code --stamp}/{@code --light}). */
    static boolean wanted(String[] argv) {
        for (String a : argv) {
            if (a.equals("--")) {
                return false;
            }
            if (a.startsWith("--stamp") || a.startsWith("--light")) {
                return true;
            }
        }
        return false;
    }

    /** Stops a running {@link #execute} (any thread, idempotent). */
    void stop() {
        stopped.countDown();
    }

    /** Parses, binds and reflects until {@link #stop()}; @return the exit status. */
    int execute(String[] argv, PrintStream out, PrintStream err, String readyFile) {
        Parsed p;
        try {
            p = parse(argv, err);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && !e.getMessage().isEmpty()) {
                err.println("twampd: " + e.getMessage());
            }
            err.print(USAGE);
            err.flush();
            return 1;
        }
        if (p == null) {
            out.print(USAGE);
            out.flush();
            return 0;
        }
        String portError = HostPort.portError(p.target.typed(), 0);
        if (portError != null) {
            err.println("twampd: " + (p.spec.light() ? "--light" : "--stamp") + ": Invalid address \""
                    + p.target.typed() + "\": " + portError);
            return 1;
        }
        InetSocketAddress bind;
        try {
            int port = p.target.hasPort() ? Integer.parseInt(p.target.port().trim()) : StampLayouts.DEFAULT_PORT;
            bind = new InetSocketAddress(InetAddress.getByName(p.target.node()), port);
        } catch (UnknownHostException | NumberFormatException e) {
            err.println("twampd: getaddrinfo(): " + p.target.typed() + ": Name or service not known");
            return 1;
        }
        StampReflector r;
        try {
            r = new StampReflector(p.spec, StampReflector.openSocket(bind, 0), null);
        } catch (SocketException e) {
            // the exception's text is "call: reason"; the line names the call already
            String m = e.getMessage();
            String reason = m.startsWith(e.call() + ": ") ? m.substring(e.call().length() + 2) : m;
            err.println("twampd: bind([" + bind.getAddress().getHostAddress() + "]:" + bind.getPort() + "): "
                    + reason);
            return 1;
        }
        if (metrics != null) {
            metrics.reflector(r, p.spec.light() ? "light" : "stamp");
        }
        reflector = r;
        // compile the reflector's per-packet code before the first session (docs/STAMP.md, "Warm-up")
        warmUp = StampReflectorWarmUp.reflector(p.spec, bind.getAddress(), StampReflectorWarmUp.PACKETS, StampReflectorWarmUp.MAX_NS,
                () -> stopped.getCount() == 0);
        if (p.verbose) {
            StampWarmUpResult w = warmUp;
            err.println("twampd: warm-up: " + w.packets() + " packets, " + w.reflected() + " replies, "
                    + w.followUps() + " follow-ups in " + w.elapsedNs() / 1_000_000 + " ms"
                    + (w.completed() ? "" : " (ended early)"));
        }
        // the PTP evidence the reflector's Sync flag reports, refreshed beside it until it is closed
        ClockSyncSource.Refresher sync = ClockSyncSource.refresh(ClockSyncSource.system(),
                ClockSyncSource.REFRESH_PERIOD_NS, r::ptpEvidence);
        try (r; sync) {
            r.start();
            InetSocketAddress local = r.localAddress();
            err.println("twampd: " + (p.spec.light() ? "TWAMP-Light" : "STAMP") + " reflector on ["
                    + local.getAddress().getHostAddress() + "]:" + local.getPort()
                    + (p.spec.authenticated() ? " (authenticated)" : "") + (p.spec.stateful() ? " (stateful)" : ""));
            err.flush();
            if (readyFile != null && !readyFile.isEmpty()) {
                try {
                    Files.writeString(Path.of(readyFile), local.getPort() + "\n", StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    err.println("twampd: cannot write " + readyFile + ": " + e.getMessage());
                }
            }
            while (!stopped.await(200, TimeUnit.MILLISECONDS)) {
                if (r.failure() != null) {
                    err.println("twampd: reflector: " + r.failure().getMessage());
                    return 1;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (p.verbose) {
            err.println("twampd: reflected " + r.reflected() + ", short " + r.shortPackets() + " (zero-filled "
                    + r.zeroFilled() + "), bad HMAC "
                    + r.badHmac() + ", not allowed " + r.notAllowed() + ", rate limited " + r.rateLimited()
                    + ", unknown TLVs " + r.unknownTlvs() + ", malformed TLVs " + r.malformedTlvs()
                    + ", bad HMAC TLVs " + r.badTlvHmac() + ", follow-ups " + r.followUpsReported()
                    + ", class of service " + r.classOfServiceApplied() + " applied " + r.classOfServiceRefused()
                    + " refused, access reports " + r.accessReports() + ", kernel drops "
                    + (r.kernelDrops() < 0 ? "unknown" : Long.toString(r.kernelDrops())));
        }
        if (r.kernelDrops() > 0) {
            err.println("twampd: the kernel dropped " + r.kernelDrops()
                    + " datagrams at the reflector's socket (receive buffer full): lost in this host, not on the network");
        }
        err.println("twampd: reflector stopped");
        err.flush();
        return 0;
    }

    /** What the start-up warm-up did, or null before it ran (tests). */
    StampWarmUpResult warmUp() {
        return warmUp;
    }

    /** The running reflector's local address, or null before it is bound (tests). */
    InetSocketAddress localAddress() {
        StampReflector r = reflector;
        return r == null ? null : r.localAddress();
    }

    private record Parsed(HostPort target, StampReflectorSpec spec, boolean verbose) {
    }

    /** @return the parsed options, or null for {@code -h}; @throws IllegalArgumentException with the reason */
    private static Parsed parse(String[] argv, PrintStream err) {
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(errors, true, StandardCharsets.UTF_8);
        GetOpt getopt = new GetOpt(argv, "twampd", "a:hk:u:vZ", LONG_OPTIONS, false, errStream);
        String target = null;
        boolean light = false;
        boolean stateful = false;
        boolean ptp = false;
        boolean verbose = false;
        String auth = null;
        String keyFile = null;
        String identity = null;
        int rate = 0;
        boolean asymmetric = false;
        int reflectOctets = 0;
        int memberLink = 0;
        boolean strict = false;
        List<SourceNetwork> allowed = new ArrayList<>();
        for (int opt = getopt.next(); opt != GetOpt.END; opt = getopt.next()) {
            String arg = getopt.optarg();
            switch (opt) {
                case OPT_STAMP, OPT_LIGHT -> {
                    if (target != null) {
                        throw new IllegalArgumentException("--stamp and --light are exclusive and given once");
                    }
                    target = arg;
                    light = opt == OPT_LIGHT;
                }
                case OPT_STATEFUL -> stateful = true;
                case OPT_PTP -> ptp = true;
                case OPT_ALLOW -> allowed.add(SourceNetwork.parse(arg));
                case OPT_RATE -> {
                    if (!arg.matches("[0-9]{1,9}") || Integer.parseInt(arg) == 0) {
                        throw new IllegalArgumentException("--rate: a positive number of replies per second: "
                                + arg);
                    }
                    rate = Integer.parseInt(arg);
                }
                case OPT_ASYMMETRIC -> asymmetric = true;
                case OPT_REFLECT_OCTETS -> {
                    if (!arg.matches("[0-9]{1,5}") || Integer.parseInt(arg) > StampReflectorSpec.MAX_REFLECT_OCTETS) {
                        throw new IllegalArgumentException("--reflect-octets: 0.."
                                + StampReflectorSpec.MAX_REFLECT_OCTETS + ": " + arg);
                    }
                    reflectOctets = Integer.parseInt(arg);
                }
                case OPT_MEMBER_LINK -> {
                    if (!arg.matches("[0-9]{1,5}") || Integer.parseInt(arg) < 1
                            || Integer.parseInt(arg) > StampReflectorSpec.MAX_MEMBER_LINK) {
                        throw new IllegalArgumentException("--member-link: 1.." + StampReflectorSpec.MAX_MEMBER_LINK
                                + ": " + arg);
                    }
                    memberLink = Integer.parseInt(arg);
                }
                case OPT_STRICT -> strict = true;
                case 'a' -> auth = arg;
                case 'k' -> keyFile = arg;
                case 'u' -> identity = arg;
                case 'v' -> verbose = true;
                case 'Z' -> {
                    // foreground: the reflector never daemonises, so -Z (which TWAMP twampd documents) is a no-op
                }
                case 'h' -> {
                    return null;
                }
                default -> throw new IllegalArgumentException(
                        errors.toString(StandardCharsets.UTF_8).strip().replaceFirst("^twampd: ", ""));
            }
        }
        if (!getopt.operands().isEmpty()) {
            throw new IllegalArgumentException("unexpected argument: " + getopt.operands().get(0));
        }
        if (target == null) {
            throw new IllegalArgumentException("--stamp or --light is required");
        }
        boolean authenticated;
        if (auth == null || auth.equals("O")) {
            authenticated = false;
        } else if (auth.equals("A")) {
            authenticated = true;
        } else {
            throw new IllegalArgumentException("Invalid -a " + auth + ": A or O");
        }
        if ((asymmetric || reflectOctets != 0) && !light) {
            throw new IllegalArgumentException("--asymmetric and --reflect-octets need --light");
        }
        if (memberLink != 0 && light) {
            throw new IllegalArgumentException("--member-link needs --stamp (RFC 9534 extends STAMP)");
        }
        if (strict && light) {
            throw new IllegalArgumentException("--strict needs --stamp (TWAMP-Light drops short requests anyway)");
        }
        byte[] key = null;
        if (authenticated) {
            if (keyFile == null || identity == null) {
                throw new IllegalArgumentException("-a A needs -u identity and -k keyfile");
            }
            key = readKey(keyFile, identity, err);
            if (light && key.length != StampReflectorSpec.LIGHT_KEY_LENGTH) {
                throw new IllegalArgumentException("--light -a A: the key must be " + StampReflectorSpec.LIGHT_KEY_LENGTH
                        + " octets (AES key 16, HMAC key 32), not " + key.length);
            }
        }
        return new Parsed(HostPort.parse(target), new StampReflectorSpec(light, authenticated, key, stateful,
                ptp ? TimestampFormat.PTP : TimestampFormat.NTP, allowed, rate,
                StampReflectorSpec.DEFAULT_MAX_PEERS, asymmetric, reflectOctets, memberLink, strict), verbose);
    }

    private static byte[] readKey(String keyFile, String identity, PrintStream err) {
        PassphraseStore.Opened opened = PassphraseStore.open(Path.of(keyFile), keyFile);
        if (!opened.ok()) {
            throw new IllegalArgumentException(opened.error());
        }
        String exposed = PassphraseStore.exposureWarning(Path.of(keyFile), keyFile);
        if (exposed != null) {
            err.println("twampd: " + exposed);
        }
        PassphraseStore.Lookup lookup = opened.store().lookupPrefix(identity);
        if (lookup instanceof PassphraseStore.Found found) {
            return found.passphrase();
        }
        throw new IllegalArgumentException("no key for identity " + identity + " in " + keyFile);
    }
}
