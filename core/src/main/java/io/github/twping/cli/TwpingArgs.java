package io.github.twping.cli;

import io.github.twping.client.HostPort;
import io.github.twping.client.TwpingOptions;
import io.github.twping.config.CNumbers;
import io.github.twping.config.DscpParser;
import io.github.twping.config.PassphraseStore;
import io.github.twping.config.PercentileList;
import io.github.twping.config.PortRange;
import io.github.twping.config.ScheduleSpec;
import io.github.twping.getopt.GetOpt;
import io.github.twping.protocol.Mode;
import io.github.twping.report.extended.ResultOptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Function;
import io.github.twping.ffm.ThreadTuning;
import io.github.twping.stamp.StampReflectorSpec;
import io.github.twping.stamp.StampTlvRequest;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Map;

/**
 * Turns twping's argv into {@link TwpingOptions}, printing exactly what C twping 5.2.3 prints for every
 * option error (docs/CLI.md), in the same order: options left to right (the first bad one ends the
 * run), then the post-parse interactions, the operand count, the pass-phrase, {@code -A}, and the
 * default padding.
 *
 * <p>The two NTP start-up lines are not printed here (the caller prints them before parsing).
 */
public final class TwpingArgs {
    /** The C getopt option string (release build: no {@code -w}). */
    public static final String SHORT_OPTIONS = "64A:k:S:u:B:c:D:E:F:i:L:P:s:z:a:b:d:Mn:N:pQRv::UhZ";

    private static final int OPT_SPIN = 256;
    private static final int OPT_SYNC = 257;
    private static final int OPT_ESTERROR = 258;
    private static final int OPT_LANG = 259;
    private static final int OPT_LOOPBACK = 260;
    private static final int OPT_HELP = 261;
    private static final int OPT_VERSION = 262;
    private static final int OPT_PROBE = 263;
    private static final int OPT_MAX_LOSS = 264;
    private static final int OPT_MAX_MEDIAN_RTT = 265;
    private static final int OPT_TIMEOUT = 266;
    private static final int OPT_STAMP = 271;
    /** Largest {@code -s} with {@code --stamp}: the value of one Extra Padding TLV (RFC 8972 §4.1). */
    private static final int STAMP_MAX_EXTRA_PADDING = 65_000;
    private static final int OPT_LIGHT = 272;
    private static final int OPT_PTP = 273;
    private static final int OPT_SSID = 274;
    private static final int OPT_TLV = 275;
    private static final int OPT_TLV_PACKETS = 276;
    private static final int OPT_ECN = 277;
    /** Codes of the result options: {@code OPT_RESULTS + index in ResultOptions.LONG_OPTIONS}. */
    private static final int OPT_RESULTS = 300;
    private static final int OPT_CPU = 267;
    private static final int OPT_RT_PRIORITY = 290;
    private static final int OPT_SEND_STAMP = 268;

    /** The long options of this port. */
    public static final List<GetOpt.LongOption> LONG_OPTIONS = withResultOptions(
            new GetOpt.LongOption("spin", GetOpt.ArgKind.REQUIRED, OPT_SPIN),
            new GetOpt.LongOption("sync", GetOpt.ArgKind.NONE, OPT_SYNC),
            new GetOpt.LongOption("esterror", GetOpt.ArgKind.REQUIRED, OPT_ESTERROR),
            new GetOpt.LongOption("lang", GetOpt.ArgKind.REQUIRED, OPT_LANG),
            new GetOpt.LongOption("loopback", GetOpt.ArgKind.NONE, OPT_LOOPBACK),
            new GetOpt.LongOption("help", GetOpt.ArgKind.NONE, OPT_HELP),
            new GetOpt.LongOption("version", GetOpt.ArgKind.NONE, OPT_VERSION),
            new GetOpt.LongOption("probe-timestamping", GetOpt.ArgKind.NONE, OPT_PROBE),
            new GetOpt.LongOption("max-loss", GetOpt.ArgKind.REQUIRED, OPT_MAX_LOSS),
            new GetOpt.LongOption("max-median-rtt", GetOpt.ArgKind.REQUIRED, OPT_MAX_MEDIAN_RTT),
            new GetOpt.LongOption("timeout", GetOpt.ArgKind.REQUIRED, OPT_TIMEOUT),
            new GetOpt.LongOption("cpu", GetOpt.ArgKind.REQUIRED, OPT_CPU),
            new GetOpt.LongOption("rt-priority", GetOpt.ArgKind.REQUIRED, OPT_RT_PRIORITY),
            new GetOpt.LongOption("send-stamp", GetOpt.ArgKind.REQUIRED, OPT_SEND_STAMP),
            new GetOpt.LongOption("stamp", GetOpt.ArgKind.REQUIRED, OPT_STAMP),
            new GetOpt.LongOption("light", GetOpt.ArgKind.REQUIRED, OPT_LIGHT),
            new GetOpt.LongOption("ptp", GetOpt.ArgKind.NONE, OPT_PTP),
            new GetOpt.LongOption("ssid", GetOpt.ArgKind.REQUIRED, OPT_SSID),
            new GetOpt.LongOption("tlv", GetOpt.ArgKind.REQUIRED, OPT_TLV),
            new GetOpt.LongOption("tlv-packets", GetOpt.ArgKind.NONE, OPT_TLV_PACKETS),
            new GetOpt.LongOption("ecn", GetOpt.ArgKind.REQUIRED, OPT_ECN));

    private static List<GetOpt.LongOption> withResultOptions(GetOpt.LongOption... own) {
        List<GetOpt.LongOption> all = new ArrayList<>(List.of(own));
        List<ResultOptions.LongOption> results = ResultOptions.LONG_OPTIONS;
        for (int i = 0; i < results.size(); i++) {
            all.add(new GetOpt.LongOption(results.get(i).name(),
                    results.get(i).hasArgument() ? GetOpt.ArgKind.REQUIRED : GetOpt.ArgKind.NONE, OPT_RESULTS + i));
        }
        return List.copyOf(all);
    }

    /** {@code -s} value that C cannot tell from "not given". */
    static final long PADDING_UNSET = 0xFFFF_FFFFL;
    /** Largest padding; larger {@code -s} values are clamped. */
    public static final int MAX_PADDING = 65000;
    /** Default {@code -c}. */
    public static final long DEFAULT_PACKET_COUNT = 100;
    /** Default {@code -b} (float). */
    public static final float DEFAULT_BUCKET_WIDTH = 0.0001f;
    private static final int PATH_MAX = 4096;
    private static final int SUMMARY_FILE_NAME_MAX = 47;
    private static final int MAX_PROMPT_BYTES = 255;
    private static final int IFNAME_MAX = 16;
    /** Returned by the option handlers when parsing goes on. */
    private static final int CONTINUE = Integer.MIN_VALUE;

    /** Outcome of {@link #parse}: options to run with, or the exit status after the messages were printed. */
    public sealed interface Result permits Parsed, Exit {
    }

    /** Parsing succeeded. */
    public record Parsed(TwpingOptions options) implements Result {
    }

    /** The run ends here with this status; everything C prints was printed. */
    public record Exit(int status) implements Result {
    }

    private final String version;
    private final PassphrasePrompt prompt;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean posixlyCorrect;
    private String defaultLanguage = "en";
    private Function<String, Path> pathResolver = Path::of;

    /**
     * @param version        printed in the usage text ({@code Version: <version>}) and by {@code --version}
     * @param prompt         where an interactive pass-phrase comes from
     * @param out            stdout (for {@code --help} and {@code --version})
     * @param err            stderr
     * @param posixlyCorrect true when {@code POSIXLY_CORRECT} is set (no option permutation)
     */
    public TwpingArgs(String version, PassphrasePrompt prompt, PrintStream out, PrintStream err,
                      boolean posixlyCorrect) {
        this.version = version;
        this.prompt = prompt;
        this.out = out;
        this.err = err;
        this.posixlyCorrect = posixlyCorrect;
    }

    /**
     * Sets the language of the human summary when {@code --lang} is not given ("en" unless the locale is
     * Russian, see {@link #languageOfLocale}).
     */
    public TwpingArgs defaultLanguage(String language) {
        this.defaultLanguage = language;
        return this;
    }

    /**
     * @return "ru" when the POSIX locale variables (the first set of {@code LC_ALL}, {@code LC_MESSAGES},
     *         {@code LANG}) name Russian, else "en"
     */
    public static String languageOfLocale(Map<String, String> environment) {
        for (String name : new String[] {"LC_ALL", "LC_MESSAGES", "LANG"}) {
            String value = environment.get(name);
            if (value != null && !value.isEmpty()) {
                return value.startsWith("ru") ? "ru" : "en";
            }
        }
        return "en";
    }

    /**
     * Sets how a typed {@code -k} path is opened (default {@link Path#of}); messages keep the typed text.
     * For tests that replay recordings made in another directory.
     *
     * @return this
     */
    public TwpingArgs pathResolver(Function<String, Path> resolver) {
        this.pathResolver = resolver;
        return this;
    }

    /**
     * Convenience for the launcher: the version from the jar manifest, the pass-phrase from the terminal
     * or {@code stdin}, {@code System.out}, and {@code POSIXLY_CORRECT} from the environment.
     */
    public static Result parse(String[] argv, String argv0, InputStream stdin, PrintStream err) {
        return new TwpingArgs(defaultVersion(), PassphrasePrompt.system(stdin, err), System.out, err,
                System.getenv("POSIXLY_CORRECT") != null).parse(argv0, argv);
    }

    /** @return the version of this build (jar manifest), or "dev" */
    public static String defaultVersion() {
        String v = TwpingArgs.class.getPackage().getImplementationVersion();
        return v != null ? v : "dev";
    }

    /**
     * Parses argv.
     *
     * @param argv0 the program name as typed (getopt messages use it verbatim, other messages its basename)
     * @param argv  the arguments after the program name
     */
    public Result parse(String argv0, String[] argv) {
        Messages msg = new Messages(err, Messages.programName(argv0));
        GetOpt getopt = new GetOpt(argv, argv0, SHORT_OPTIONS, LONG_OPTIONS, posixlyCorrect, err);
        State s = new State();
        int c;
        while ((c = getopt.next()) != GetOpt.END) {
            if (c == GetOpt.ERROR && getopt.optopt() == 0) {         // unknown, ambiguous or misused long option
                return new Exit(longUsage(msg, null));
            }
            int status = option(c, getopt.optarg(), s, msg);
            if (status != CONTINUE) {
                return new Exit(status);
            }
        }
        return finish(s, getopt.operands(), msg);
    }

    /** Handles one option; @return an exit status to stop with, or {@link #CONTINUE}. */
    private int option(int c, String arg, State s, Messages msg) {
        switch (c) {
            case GetOpt.ERROR -> {
                return usage(msg, "", Messages.EXIT_OK);
            }
            case 'h' -> {
                Usage.print(err, msg.progName(), "", version);
                err.print(Usage.LONG_OPTIONS_TEXT);
                err.flush();
                return Messages.EXIT_OK;
            }
            case '4' -> s.ipv4 = true;
            case '6' -> s.ipv6 = true;
            case 'A' -> s.authMode = arg;
            case 'k' -> s.pfsFile = arg;
            case 'S' -> s.sourceAddress = arg;
            case 'u' -> s.identity = arg;
            case 'B' -> {
                if (s.bindInterface != null) {
                    return usage(msg, Messages.B_TWICE, Messages.EXIT_FAILURE);
                }
                s.bindInterface = arg.length() > IFNAME_MAX ? arg.substring(0, IFNAME_MAX) : arg;
            }
            case 'Z' -> s.zeroAddresses = true;
            case 'c' -> {
                OptionalLong v = CNumbers.parseUint32(arg);
                if (v.isEmpty()) {
                    return usage(msg, Messages.INVALID_POSITIVE_INTEGER, Messages.EXIT_FAILURE);
                }
                s.packetCount = v.getAsLong();
            }
            case 'D' -> {
                if (s.dscp != 0) {
                    return usage(msg, Messages.DSCP_TWICE, Messages.EXIT_FAILURE);
                }
                int dscp = DscpParser.parse(arg);
                if (dscp == DscpParser.INVALID) {
                    msg.error(Messages.invalidDscp(arg));
                    return Messages.EXIT_FAILURE;
                }
                s.dscp = dscp;
            }
            case 'E', 'L', 'z' -> {
                OptionalDouble v = CNumbers.parseDoubleWhole(arg);
                if (v.isEmpty() || v.getAsDouble() < 0.0) {
                    return usage(msg, Messages.invalidFloat((char) c), Messages.EXIT_FAILURE);
                }
                switch (c) {
                    case 'E' -> s.endDelaySeconds = v.getAsDouble();
                    case 'L' -> s.lossTimeoutSeconds = v.getAsDouble();
                    default -> s.startDelaySeconds = v.getAsDouble();
                }
            }
            case 'F' -> s.saveFile = arg;
            case 'i' -> {
                ScheduleSpec.Parsed p = ScheduleSpec.parse(arg);
                if (!p.ok()) {
                    msg.error(p.error());
                    return usage(msg, Messages.INVALID_SCHEDULE, Messages.EXIT_FAILURE);
                }
                s.schedule = p.spec();
            }
            case 'P' -> {
                Optional<PortRange> range = PortRange.parse(arg);
                if (range.isEmpty()) {
                    return usage(msg, Messages.INVALID_PORT_RANGE, Messages.EXIT_FAILURE);
                }
                s.portRange = range.get();
            }
            case 's' -> {
                OptionalLong v = CNumbers.parseUint32(arg);
                if (v.isEmpty()) {
                    return usage(msg, Messages.INVALID_POSITIVE_INTEGER, Messages.EXIT_FAILURE);
                }
                s.padding = v.getAsLong();
            }
            case 'a' -> {
                PercentileList.Parsed p = PercentileList.parse(arg);
                if (!p.ok()) {
                    msg.error(p.error());
                    return usage(msg, Messages.INVALID_ALPHA_LIST, Messages.EXIT_FAILURE);
                }
                s.percentiles = p.values();
            }
            case 'b' -> {
                OptionalDouble v = CNumbers.parseDoubleWhole(arg);
                float width = v.isPresent() ? (float) v.getAsDouble() : 0.0f;
                if (!(width > 0.0f)) {
                    return usage(msg, Messages.invalidFloat('b'), Messages.EXIT_FAILURE);
                }
                s.bucketWidth = width;
            }
            case 'd' -> s.summaryDirectory = arg;
            case 'M' -> s.machine = true;
            case 'p' -> s.summaryFiles = true;
            case 'Q' -> s.quiet = true;
            case 'R' -> s.raw = true;
            case 'U' -> s.unixTimestamps = true;
            case 'n' -> {
                char u = arg.isEmpty() ? 0 : Character.toLowerCase(arg.charAt(0));
                if (u != 'n' && u != 'u' && u != 'm' && u != 's') {
                    return usage(msg, Messages.INVALID_UNITS, Messages.EXIT_FAILURE);
                }
                s.units = u;
            }
            case 'N' -> {
                OptionalLong v = CNumbers.parseUint32(arg);
                if (v.isEmpty()) {
                    return usage(msg, Messages.invalidQuotedInteger('N'), Messages.EXIT_FAILURE);
                }
                s.subsessionPackets = v.getAsLong();
            }
            case 'v' -> {
                s.verbose = true;
                if (arg != null) {
                    OptionalLong v = CNumbers.parseUint32(arg);
                    if (v.isEmpty()) {
                        return usage(msg, Messages.invalidQuotedInteger('v'), Messages.EXIT_FAILURE);
                    }
                    s.recordLimit = v.getAsLong();
                }
            }
            default -> {
                return longOption(c, arg, s, msg);
            }
        }
        return CONTINUE;
    }

    private int longOption(int c, String arg, State s, Messages msg) {
        switch (c) {
            case OPT_SPIN -> {
                if (arg.equals("auto")) {
                    s.spinMicros = TwpingOptions.Extras.AUTO_SPIN;
                    return CONTINUE;
                }
                OptionalLong v = CNumbers.parseStrictUnsigned(arg, CNumbers.UINT32_MASK);
                if (v.isEmpty()) {
                    return longUsage(msg, Messages.invalidLong("spin", "Positive integer expected"));
                }
                s.spinMicros = v.getAsLong();
            }
            case OPT_SYNC -> s.sync = true;
            case OPT_ESTERROR -> {
                OptionalLong v = CNumbers.parseStrictUnsigned(arg, CNumbers.UINT32_MASK);
                if (v.isEmpty()) {
                    return longUsage(msg, Messages.invalidLong("esterror", "Positive integer expected"));
                }
                s.esterrorMicros = v.getAsLong();
                s.sync = true;
            }
            case OPT_LANG -> {
                if (!arg.equals("en") && !arg.equals("ru")) {
                    return longUsage(msg, Messages.invalidLong("lang", "en or ru expected"));
                }
                s.language = arg;
            }
            case OPT_LOOPBACK -> s.loopback = true;
            case OPT_PROBE -> s.probe = true;
            case OPT_HELP -> {
                out.print(Usage.helpText(version));
                out.flush();
                return Messages.EXIT_OK;
            }
            case OPT_VERSION -> {
                out.print(Messages.PROGRAM + " " + version + "\n");
                out.flush();
                return Messages.EXIT_OK;
            }
            case OPT_MAX_LOSS -> {
                OptionalDouble v = CNumbers.parseDoubleWhole(arg);
                if (v.isEmpty() || arg.isEmpty() || !(v.getAsDouble() >= 0.0 && v.getAsDouble() <= 100.0)) {
                    return longUsage(msg, Messages.invalidLong("max-loss", "Percentage 0..100 expected"));
                }
                s.maxLossPercent = v.getAsDouble();
            }
            case OPT_MAX_MEDIAN_RTT -> {
                double v = positiveFinite(arg);
                if (Double.isNaN(v)) {
                    return longUsage(msg, Messages.invalidLong("max-median-rtt", "Positive float expected"));
                }
                s.maxMedianRttMillis = v;
            }
            case OPT_STAMP, OPT_LIGHT -> {
                if (s.stampTarget != null) {
                    msg.error("--stamp and --light are exclusive and given once");
                    return longUsage(msg, null);
                }
                s.stampTarget = arg;
                s.stampProtocol = c == OPT_STAMP ? TwpingOptions.TestProtocol.STAMP
                        : TwpingOptions.TestProtocol.LIGHT;
            }
            case OPT_PTP -> s.ptp = true;
            case OPT_TLV -> s.tlvList = arg;
            case OPT_TLV_PACKETS -> s.tlvPackets = true;
            case OPT_ECN -> {
                if (!arg.matches("[0-3]")) {
                    msg.error("Invalid value for --ecn (0..3): " + arg);
                    return longUsage(msg, null);
                }
                s.ecn = Integer.parseInt(arg);
            }
            case OPT_SSID -> {
                if (!arg.matches("[0-9]{1,5}") || Integer.parseInt(arg) > 0xFFFF) {
                    msg.error("Invalid value for --ssid (0..65535): " + arg);
                    return longUsage(msg, null);
                }
                s.ssid = Integer.parseInt(arg);
            }
            case OPT_TIMEOUT -> {
                double v = positiveFinite(arg);
                if (Double.isNaN(v)) {
                    return longUsage(msg, Messages.invalidLong("timeout", "Positive float expected"));
                }
                s.controlTimeoutSeconds = v;
            }
            case OPT_CPU -> {
                BitSet cpus;
                try {
                    cpus = ThreadTuning.parseCpuList(arg);
                } catch (IllegalArgumentException e) {
                    return longUsage(msg, Messages.invalidLong("cpu", "CPU list expected (0 or 0,2-3)"));
                }
                String unavailable = ThreadTuning.unavailableReason(cpus);
                if (unavailable != null) {
                    return longUsage(msg, Messages.invalidLong("cpu", unavailable));
                }
                s.cpus = cpus;
            }
            case OPT_RT_PRIORITY -> {
                if (!arg.matches("[1-9][0-9]?")) {
                    return longUsage(msg, Messages.invalidLong("rt-priority", "Priority 1..99 expected"));
                }
                String refused = ThreadTuning.fifoRefusal(Integer.parseInt(arg));
                if (refused != null) {
                    return longUsage(msg, Messages.invalidLong("rt-priority", refused));
                }
                s.rtPriority = Integer.parseInt(arg);
            }
            case OPT_SEND_STAMP -> {
                switch (arg) {
                    case "kernel" -> s.kernelSendStamps = true;
                    case "user" -> s.kernelSendStamps = false;
                    default -> {
                        return longUsage(msg, Messages.invalidLong("send-stamp", "kernel or user expected"));
                    }
                }
            }
            default -> {
                int i = c - OPT_RESULTS;
                if (i < 0 || i >= ResultOptions.LONG_OPTIONS.size()) {
                    throw new IllegalStateException("option without handler: " + c);
                }
                String name = ResultOptions.LONG_OPTIONS.get(i).name();
                String problem = s.results.set(name, arg);
                if (problem != null) {
                    return longUsage(msg, Messages.invalidLong(name, problem));
                }
            }
        }
        return CONTINUE;
    }

    private static double positiveFinite(String arg) {
        OptionalDouble v = CNumbers.parseDoubleWhole(arg);
        if (v.isEmpty() || arg.isEmpty() || !(v.getAsDouble() > 0.0) || Double.isInfinite(v.getAsDouble())) {
            return Double.NaN;
        }
        return v.getAsDouble();
    }

    /** Post-parse interactions, operands, pass-phrase, {@code -A}, default padding (docs/CLI.md). */
    private Result finish(State s, List<String> operands, Messages msg) {
        if (s.ipv4 && s.ipv6) {
            msg.error(Messages.FOUR_AND_SIX);
            return new Exit(Messages.EXIT_FAILURE);
        }
        if (s.raw) {
            s.quiet = true;
        }
        if (s.verbose && s.quiet) {
            msg.error(Messages.IGNORING_V_Q);
            s.verbose = false;
        }
        if (s.machine && s.quiet) {
            msg.error(Messages.IGNORING_M_Q);
            s.machine = false;
        }
        if (s.verbose && s.machine) {
            msg.error(Messages.IGNORING_V_M);
            s.verbose = false;
        }
        if (s.summaryDirectory != null
                && s.summaryDirectory.getBytes(StandardCharsets.UTF_8).length + 1 + SUMMARY_FILE_NAME_MAX + 1 > PATH_MAX) {
            return new Exit(usage(msg, Messages.PATH_TOO_LONG, Messages.EXIT_FAILURE));
        }

        boolean stamp = s.stampTarget != null;
        if (stamp && s.results.reporting()) {
            msg.error("--report re-reports a saved file: not with --stamp/--light");
            return new Exit(longUsage(msg, null));
        }
        if (stamp && (s.loopback || s.probe)) {
            msg.error("--stamp/--light cannot be combined with --loopback or --probe-timestamping");
            return new Exit(longUsage(msg, null));
        }
        if (!stamp && s.ecn >= 0) {
            msg.error("--ecn needs --stamp or --light");
            return new Exit(longUsage(msg, null));
        }
        if (!stamp && (s.ptp || s.ssid != 0 || s.tlvList != null || s.tlvPackets)) {
            msg.error("--ptp, --ssid, --tlv and --tlv-packets need --stamp");
            return new Exit(longUsage(msg, null));
        }
        int minOperands = s.loopback || s.probe || stamp || s.results.reporting() ? 0 : 1;
        int maxOperands = s.loopback || stamp || s.results.reporting() ? 0 : s.probe ? 1 : 2;
        if (operands.size() < minOperands || operands.size() > maxOperands) {
            boolean longMode = s.loopback || s.probe || stamp || s.results.reporting();
            return new Exit(longMode ? longUsage(msg, null) : usage(msg, null, Messages.EXIT_FAILURE));
        }
        if (stamp && HostPort.portError(s.stampTarget, 1) != null) {
            msg.error((s.stampProtocol == TwpingOptions.TestProtocol.STAMP ? "--stamp" : "--light")
                    + ": Invalid address \"" + s.stampTarget + "\": " + HostPort.portError(s.stampTarget, 1));
            return new Exit(Messages.EXIT_FAILURE);
        }
        HostPort test = stamp ? HostPort.parse(s.stampTarget)
                : operands.isEmpty() ? null : HostPort.parse(operands.get(0));
        HostPort server = operands.size() == 2 ? HostPort.parse(operands.get(1)) : test;

        String identity = s.identity;
        byte[] passphrase = null;
        if (identity != null) {
            passphrase = s.pfsFile != null ? fromStore(identity, s.pfsFile, msg) : fromPrompt(identity, msg);
            if (passphrase == KEY_FILE_FATAL) {
                return new Exit(Messages.EXIT_FAILURE);
            }
            if (passphrase == null) {
                identity = null;
            }
        }

        int modeMask;
        if (s.authMode != null) {
            modeMask = Mode.parseLetters(s.authMode);
            if (modeMask < 0) {
                msg.error("Invalid -authmode " + Character.toString(s.authMode.codePointAt(-1 - modeMask)));
                return new Exit(usage(msg, null, Messages.EXIT_FAILURE));
            }
        } else {
            modeMask = identity != null ? Mode.ALL_BITS : Mode.OPEN.bits();
        }

        boolean paddingGiven = s.padding != PADDING_UNSET;
        int padding = paddingGiven ? (int) Math.min(s.padding, MAX_PADDING) : defaultPadding(modeMask);
        TwpingOptions.Stamp stampOptions = TwpingOptions.Stamp.NONE;
        if (stamp) {
            boolean authenticated = passphrase != null && (modeMask & Mode.OPEN.bits()) == 0;
            if (authenticated && s.stampProtocol == TwpingOptions.TestProtocol.LIGHT
                    && passphrase.length != StampReflectorSpec.LIGHT_KEY_LENGTH) {
                msg.error("--light -A A: the key must be " + StampReflectorSpec.LIGHT_KEY_LENGTH
                        + " octets (AES key 16, HMAC key 32), not " + passphrase.length);
                return new Exit(Messages.EXIT_FAILURE);
            }
            if (s.stampProtocol == TwpingOptions.TestProtocol.STAMP) {
                if (padding > STAMP_MAX_EXTRA_PADDING) {
                    msg.error("-s: the Extra Padding TLV holds at most " + STAMP_MAX_EXTRA_PADDING + " octets");
                    return new Exit(longUsage(msg, null));
                }
                padding = paddingGiven ? padding : 0;
            } else if (s.ptp || s.ssid != 0 || s.tlvList != null || s.tlvPackets) {
                msg.error("--ptp, --ssid, --tlv and --tlv-packets need --stamp");
                return new Exit(longUsage(msg, null));
            }
            if (s.authMode != null && (modeMask & Mode.OPEN.bits()) == 0 && !authenticated) {
                msg.error("-A without O needs a key: -u identity and -k keyfile");
                return new Exit(Messages.EXIT_FAILURE);
            }
            StampTlvRequest tlvs = StampTlvRequest.NONE;
            if (s.tlvList != null) {
                try {
                    tlvs = StampTlvRequest.parse(s.tlvList, authenticated);
                } catch (IllegalArgumentException e) {
                    msg.error("--tlv: " + e.getMessage());
                    return new Exit(longUsage(msg, null));
                }
                if (padding + tlvs.bytes() > STAMP_MAX_EXTRA_PADDING) {
                    msg.error("-s: the Extra Padding TLV and the other TLVs hold at most "
                            + STAMP_MAX_EXTRA_PADDING + " octets");
                    return new Exit(longUsage(msg, null));
                }
            }
            stampOptions = new TwpingOptions.Stamp(s.stampProtocol, s.ptp, s.ssid, authenticated, tlvs,
                    s.tlvPackets, Math.max(0, s.ecn));
        }

        if (s.loopback) {
            s.results.set("exact", null);       // C has no --loopback: its summary comes with the exact block
        }
        TwpingOptions.AddressFamily family = s.ipv4 ? TwpingOptions.AddressFamily.IPV4_ONLY
                : s.ipv6 ? TwpingOptions.AddressFamily.IPV6_ONLY : TwpingOptions.AddressFamily.ANY;
        TwpingOptions options = new TwpingOptions(test, server,
                new TwpingOptions.Test(s.packetCount, s.schedule, s.lossTimeoutSeconds, padding, paddingGiven,
                        s.startDelaySeconds, s.endDelaySeconds, s.dscp, s.portRange, s.saveFile),
                new TwpingOptions.Connection(modeMask, identity, passphrase, s.sourceAddress, s.bindInterface,
                        s.zeroAddresses, family),
                new TwpingOptions.Output(s.raw, s.machine, s.quiet, s.verbose, s.recordLimit, s.unixTimestamps,
                        s.units, s.percentiles, s.bucketWidth, s.subsessionPackets, s.summaryFiles,
                        s.summaryDirectory),
                new TwpingOptions.Extras(s.spinMicros, s.sync, s.esterrorMicros,
                        s.language != null ? s.language : defaultLanguage, s.loopback, s.probe,
                        s.maxLossPercent, s.maxMedianRttMillis, s.controlTimeoutSeconds, s.results.build(version), s.cpus,
                        s.kernelSendStamps, s.rtPriority), stampOptions);
        return new Parsed(options);
    }

    /**
     * The padding twping chooses without {@code -s} (docs/PROTOCOL-TEST.md), from the <em>requested</em> mode mask:
     * exactly open or exactly mixed 27, exactly authenticated or exactly encrypted 64, anything else 0.
     */
    public static int defaultPadding(int modeMask) {
        Mode only = Mode.fromBits(modeMask);
        return only == null ? 0 : only.authenticatedTestPackets() ? 64 : 27;
    }

    /** Returned by {@link #fromStore} for a key file above the size bound: the run stops with status 1. */
    private static final byte[] KEY_FILE_FATAL = new byte[0];

    private byte[] fromStore(String identity, String pfsFile, Messages msg) {
        PassphraseStore.Opened opened;
        try {
            opened = PassphraseStore.open(pathResolver.apply(pfsFile), pfsFile);
        } catch (InvalidPathException e) {
            msg.error("Unable to open " + pfsFile + ": No such file or directory");
            return null;
        }
        if (!opened.ok()) {
            msg.error(opened.error());
            return opened.fatal() ? KEY_FILE_FATAL : null;
        }
        PassphraseStore.Lookup lookup = opened.store().lookupPrefix(identity);
        if (lookup instanceof PassphraseStore.Found found) {
            return found.passphrase();
        }
        if (lookup instanceof PassphraseStore.SyntaxError e && e.message() != null) {
            msg.error(e.message());
        }
        msg.error(Messages.passphraseNotFound(identity, pfsFile));
        return null;
    }

    private byte[] fromPrompt(String identity, Messages msg) {
        String text = "Enter passphrase for identity '" + identity + "': ";
        if (text.getBytes(StandardCharsets.UTF_8).length > MAX_PROMPT_BYTES) {
            msg.error(Messages.INVALID_IDENTITY);
            return null;
        }
        try {
            return prompt.read(text);
        } catch (IOException e) {
            msg.error("I2ReadPassPhraseAlloc(): " + (e.getMessage() != null ? e.getMessage() : "Input/output error"));
            return null;
        }
    }

    private int usage(Messages msg, String message, int status) {
        Usage.print(err, msg.progName(), message, version);
        return status;
    }

    /** An error in a long option: the message (when not null), a pointer to {@code --help}; exit status 1. */
    private int longUsage(Messages msg, String message) {
        Usage.printLongOptionError(err, msg.progName(), message);
        return Messages.EXIT_FAILURE;
    }

    /** Mutable parse state; copied into the immutable options at the end. */
    private static final class State {
        boolean ipv4;
        boolean ipv6;
        String authMode;
        String pfsFile;
        String sourceAddress;
        String identity;
        String bindInterface;
        boolean zeroAddresses;
        long packetCount = DEFAULT_PACKET_COUNT;
        int dscp;
        double endDelaySeconds = 1.0;
        double lossTimeoutSeconds;
        double startDelaySeconds;
        String saveFile;
        ScheduleSpec schedule = ScheduleSpec.defaultSchedule();
        PortRange portRange = PortRange.DEFAULT;
        long padding = PADDING_UNSET;
        float[] percentiles = new float[0];
        float bucketWidth = DEFAULT_BUCKET_WIDTH;
        String summaryDirectory;
        boolean machine;
        boolean summaryFiles;
        boolean quiet;
        boolean raw;
        boolean unixTimestamps;
        char units = 'm';
        long subsessionPackets;
        boolean verbose;
        long recordLimit;
        long spinMicros = TwpingOptions.Extras.DEFAULT_SPIN_MICROS;
        boolean sync;
        long esterrorMicros = -1;
        String language;
        boolean loopback;
        boolean probe;
        double maxLossPercent = Double.NaN;
        double maxMedianRttMillis = Double.NaN;
        double controlTimeoutSeconds;
        String stampTarget;
        String tlvList;
        boolean tlvPackets;
        /** {@code --ecn}, 0..3, -1 when not given. */
        int ecn = -1;
        TwpingOptions.TestProtocol stampProtocol;
        boolean ptp;
        int ssid;
        final ResultOptions.Builder results = new ResultOptions.Builder();
        BitSet cpus;
        boolean kernelSendStamps = true;
        int rtPriority;
    }
}
