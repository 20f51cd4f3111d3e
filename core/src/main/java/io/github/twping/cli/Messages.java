package io.github.twping.cli;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Writes twping's diagnostics in the C form {@code <prog>: <text>\n} on stderr, and holds the texts of
 * the option-parsing messages and the exit statuses.
 */
public final class Messages {
    /** The program name used when argv[0] gives none. */
    public static final String PROGRAM = "twping";

    /** Normal completion, {@code -h}, unknown options (C quirk). */
    public static final int EXIT_OK = 0;
    /** Bad option value, wrong operands, connection or session failure. */
    public static final int EXIT_FAILURE = 1;
    /** Interrupted before the test wait (C). */
    public static final int EXIT_INTERRUPTED = 2;
    /** A {@code --max-loss} / {@code --max-median-rtt} gate was violated (this port only). */
    public static final int EXIT_GATE_FAILED = 3;

    static final String INVALID_POSITIVE_INTEGER = "Invalid value. Positive integer expected";
    static final String INVALID_SCHEDULE = "Invalid Schedule.";
    static final String INVALID_PORT_RANGE = "Invalid test port range specified.";
    static final String DSCP_TWICE = "Invalid option '-D'. Can only set one '-D'";
    static final String INVALID_ALPHA_LIST = "Invalid '-a' alpha list .";
    static final String INVALID_UNITS = "Invalid '-n' value.";
    static final String B_TWICE = "-B can only be used once";
    static final String PATH_TOO_LONG = "-d: pathname too long.";
    static final String FOUR_AND_SIX = "-4 and -6 flags cannot be set together";
    static final String IGNORING_V_Q = "Ignoring '-v', '-Q' set";
    static final String IGNORING_M_Q = "Ignoring '-M', '-Q' set";
    static final String IGNORING_V_M = "Ignoring '-v', '-M' set";
    static final String INVALID_IDENTITY = "ip_set_auth: Invalid identity";

    private final PrintStream err;
    private final String progName;

    /**
     * @param err      stderr
     * @param progName the prefix, normally {@link #programName(String)} of argv[0]
     */
    public Messages(PrintStream err, String progName) {
        this.err = err;
        this.progName = progName;
    }

    /** @return the basename of argv[0] (the C program name), or {@link #PROGRAM} when empty */
    public static String programName(String argv0) {
        if (argv0 == null || argv0.isEmpty()) {
            return PROGRAM;
        }
        int slash = argv0.lastIndexOf('/');
        String base = argv0.substring(slash + 1);
        return base.isEmpty() ? PROGRAM : base;
    }

    /** @return the prefix used for every line */
    public String progName() {
        return progName;
    }

    /** @return the stream messages go to */
    public PrintStream stream() {
        return err;
    }

    /** Prints {@code <prog>: <text>}. */
    public void error(String text) {
        err.print(progName + ": " + text + "\n");
        err.flush();
    }

    static String invalidFloat(char option) {
        return "Invalid '-" + option + "' value. Positive float expected";
    }

    static String invalidQuotedInteger(char option) {
        return "Invalid \"-" + option + "\" value. Positive integer expected";
    }

    static String invalidDscp(String arg) {
        return "Invalid DSCP value (-D): \"" + arg + "\": Invalid argument";
    }

    static String invalidAuthMode(char c) {
        return "Invalid -authmode " + c;
    }

    static String passphraseNotFound(String id, String file) {
        return "Unable to find pass-phrase for id=\"" + id + "\" from pffile=\"" + file + "\"";
    }

    static String invalidLong(String name, String expected) {
        return "Invalid '--" + name + "' value. " + expected;
    }

    /**
     * The post-connection check of docs/CLI.md {@code -L}: the C text
     * {@code Invalid test specification: LossThreshold(%f) '-L' < BucketWidth (%f) '-b'}.
     */
    public static String lossBelowBucketWidth(double lossSeconds, float bucketWidthSeconds) {
        return "Invalid test specification: LossThreshold(" + fixed6(lossSeconds) + ") '-L' < BucketWidth ("
                + fixed6(bucketWidthSeconds) + ") '-b'";
    }

    /** C {@code %f}: six decimals, exact binary value rounded half-even as glibc does. */
    static String fixed6(double v) {
        if (Double.isNaN(v)) {
            return v < 0 || Double.doubleToRawLongBits(v) < 0 ? "-nan" : "nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        return new BigDecimal(v).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
    }
}
