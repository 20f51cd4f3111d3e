package io.github.twping.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.github.twping.client.HostPort;
import io.github.twping.config.PassphraseStore;
import io.github.twping.getopt.GetOpt;
import io.github.twping.stamp.SourceNetwork;
import io.github.twping.protocol.StampLayouts;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.TimestampFormat;

/**
 * The command line of {@code twampd --stamp ADDR[:PORT]} and {@code twampd --light ADDR[:PORT]} (docs/CLI.md):
 * argv to the reflector's address and {@link StampReflectorSpec}, as {@link TwampdArgs} is for TWAMP's twampd;
 * the daemon that runs them is {@code server.StampReflectorDaemon}.
 *
 * @param target  the address to bind, as typed
 * @param spec    what the reflector does
 * @param verbose {@code -v}
 * @param keyWarning the key file's exposure warning ({@link PassphraseStore#exposureWarning}), or null
 */
record StampReflectorArgs(HostPort target, StampReflectorSpec spec, boolean verbose, String keyWarning) {
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


    /** The address to bind: the target's node and port ({@value StampLayouts#DEFAULT_PORT} when none is given). */
    InetSocketAddress bindAddress() throws UnknownHostException {
        int port = target.hasPort() ? Integer.parseInt(target.port().trim()) : StampLayouts.DEFAULT_PORT;
        return new InetSocketAddress(InetAddress.getByName(target.node()), port);
    }

    /**
     * The mode switch of twampd's command line, looked at before either parser runs (as {@code --agent} is in
     * twping's): the STAMP reflector's options and TWAMP's are different getopt sets.
     *
     * @return true when argv asks for a STAMP or TWAMP-Light reflector (any {@code --stamp}/{@code --light})
     */
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

    /** @return the parsed options, or null for {@code -h}; @throws IllegalArgumentException with the reason */
    static StampReflectorArgs parse(String[] argv) {
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
                case 'Z' -> {
                    // foreground: the reflector never daemonises, so -Z (which TWAMP twampd documents) is a no-op
                }
                case 'a' -> auth = arg;
                case 'k' -> keyFile = arg;
                case 'u' -> identity = arg;
                case 'v' -> verbose = true;
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
        String keyWarning = null;
        if (authenticated) {
            if (keyFile == null || identity == null) {
                throw new IllegalArgumentException("-a A needs -u identity and -k keyfile");
            }
            key = readKey(keyFile, identity);
            keyWarning = PassphraseStore.exposureWarning(Path.of(keyFile), keyFile);
            if (light && key.length != StampReflectorSpec.LIGHT_KEY_LENGTH) {
                throw new IllegalArgumentException("--light -a A: the key must be " + StampReflectorSpec.LIGHT_KEY_LENGTH
                        + " octets (AES key 16, HMAC key 32), not " + key.length);
            }
        }
        return new StampReflectorArgs(HostPort.parse(target), new StampReflectorSpec(light, authenticated, key, stateful,
                ptp ? TimestampFormat.PTP : TimestampFormat.NTP, allowed, rate,
                StampReflectorSpec.DEFAULT_MAX_PEERS, asymmetric, reflectOctets, memberLink, strict), verbose, keyWarning);
    }

    private static byte[] readKey(String keyFile, String identity) {
        PassphraseStore.Opened opened = PassphraseStore.open(Path.of(keyFile), keyFile);
        if (!opened.ok()) {
            throw new IllegalArgumentException(opened.error());
        }
        PassphraseStore.Lookup lookup = opened.store().lookupPrefix(identity);
        if (lookup instanceof PassphraseStore.Found found) {
            return found.passphrase();
        }
        throw new IllegalArgumentException("no key for identity " + identity + " in " + keyFile);
    }
}
