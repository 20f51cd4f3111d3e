package io.github.twping.cli;

import io.github.twping.getopt.GetOpt;
import io.github.twping.server.ConfigException;
import io.github.twping.server.ServerConfigBuilder;
import java.nio.file.Path;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.util.List;

/**
 * The twampd command line (docs/SERVER.md): {@code -a authmode -c confdir -d datadir -e facility -f -G group -h
 * -P portrange -R vardir -S nodename:port -U user -v -Z}. Values given here override the configuration file.
 * Parsed with {@link GetOpt} (glibc getopt rules and messages).
 */
public record TwampdArgs(String authModes, Path confDir, Path dataDir, String facility, boolean rootFolly,
        String group, boolean help, String testPorts, Path varDir, String srcNode, String user, boolean verbose,
        boolean foreground, String reflectorWait, String cpus, String rxStamp, String rtPriority) {

    /** The getopt option string of C twampd's options used here. */
    static final String OPTSTRING = "a:c:d:e:fG:hP:R:S:U:vZ";

    /**
     * The usage text printed by {@code -h}/{@code --help} (stdout, exit 0) and after a bad option (stderr,
     * exit 1): the C twampd options, then this port's long options, grouped, and the STAMP/TWAMP-Light mode.
     */
    public static final String USAGE = """
            Usage: twampd [options]
            Where "options" are:

               -a authmode       Default supported authmodes:[E]ncrypted,[A]uthenticated,[O]pen,[M]ixed
               -c confdir        Configuration directory
               -d datadir        Data directory
               -e facility       Syslog "facility" to log errors
               -f                Allow twampd to run as root
               -G group          Run as group "group" :-gid also valid
               -h                Print this message and exit
               -P portrange      Port range for reflectors to use (0 or low-high)
               -R vardir         Location for pid file
               -S nodename:port  Srcaddr to bind to
               -U user           Run as user "user" :-uid also valid
               -v                verbose output
               -Z                Do not daemonize (run in the foreground, log to stderr)

            Long options of this port (docs/SERVER.md):

                          [Reflector threads]

               --reflector-wait block|spin[:MICROS]|busy-poll
                                 How reflector threads wait for packets (default block)
               --cpu LIST        Run reflector threads on these CPUs (e.g. 1 or 0,2-3)
               --rt-priority PRIO
                                 Run reflector threads under SCHED_FIFO at PRIO (1..99)
               --rx-stamp kernel|user
                                 Receive time of sender packets: the kernel's RX timestamp (default)
                                 or the clock read after the receive call, as C twampd does

                          [Metrics]

               --metrics-listen addr:port  Prometheus metrics on http://addr:port/metrics (docs/FLEET.md)
               --help            Print this message and exit

            STAMP and TWAMP-Light reflector, no control server (docs/STAMP.md):

            Usage: twampd --stamp addr[:port] [options]    STAMP Session-Reflector (RFC 8762, RFC 8972)
                   twampd --light addr[:port] [options]    TWAMP-Light reflector (RFC 5357 Appendix I)
            Where "options" are:

            """ + StampReflectorArgs.OPTIONS;

    private static final int OPT_REFLECTOR_WAIT = 1000;
    private static final int OPT_CPU = 1001;
    private static final int OPT_RX_STAMP = 1002;
    private static final int OPT_RT_PRIORITY = 1003;
    private static final int OPT_HELP = 1004;
    private static final List<GetOpt.LongOption> LONG_OPTIONS = List.of(
            new GetOpt.LongOption("reflector-wait", GetOpt.ArgKind.REQUIRED, OPT_REFLECTOR_WAIT),
            new GetOpt.LongOption("cpu", GetOpt.ArgKind.REQUIRED, OPT_CPU),
            new GetOpt.LongOption("rx-stamp", GetOpt.ArgKind.REQUIRED, OPT_RX_STAMP),
            new GetOpt.LongOption("rt-priority", GetOpt.ArgKind.REQUIRED, OPT_RT_PRIORITY),
            new GetOpt.LongOption("help", GetOpt.ArgKind.NONE, OPT_HELP));

    /** A directory argument; a name the file system cannot hold (a NUL byte) is a one-line error. */
    private static Path path(char option, String value) throws ConfigException {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new ConfigException("twampd: invalid path for -" + option + ": " + e.getReason());
        }
    }

    /**
     * Parses {@code argv}. Errors (unknown option, missing value, stray operand) become a
     * {@link ConfigException} whose message is the one-line diagnostic to print before the usage text.
     */
    public static TwampdArgs parse(String[] argv) throws ConfigException {
        String a = null;
        Path c = null;
        Path d = null;
        String e = null;
        boolean f = false;
        String g = null;
        boolean h = false;
        String p = null;
        Path r = null;
        String s = null;
        String u = null;
        boolean v = false;
        boolean z = false;
        String wait = null;
        String cpus = null;
        String rxStamp = null;
        String rtPriority = null;
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(errors, true, StandardCharsets.UTF_8);
        GetOpt getopt = new GetOpt(argv, "twampd", OPTSTRING, LONG_OPTIONS, false, errStream);
        for (int opt = getopt.next(); opt != GetOpt.END; opt = getopt.next()) {
            String value = getopt.optarg();
            switch (opt) {
                case 'a' -> a = value;
                case 'c' -> c = path('c', value);
                case 'd' -> d = path('d', value);
                case 'e' -> e = value;
                case 'f' -> f = true;
                case 'G' -> g = value;
                case 'h', OPT_HELP -> h = true;
                case 'P' -> p = value;
                case 'R' -> r = path('R', value);
                case 'S' -> s = value;
                case 'U' -> u = value;
                case 'v' -> v = true;
                case 'Z' -> z = true;
                case OPT_REFLECTOR_WAIT -> wait = value;
                case OPT_CPU -> cpus = value;
                case OPT_RX_STAMP -> rxStamp = value;
                case OPT_RT_PRIORITY -> rtPriority = value;
                default -> throw new ConfigException(errors.toString(StandardCharsets.UTF_8).strip());
            }
        }
        if (!getopt.operands().isEmpty()) {
            throw new ConfigException("twampd: unexpected argument \"" + getopt.operands().get(0) + "\"");
        }
        return new TwampdArgs(a, c, d, e, f, g, h, p, r, s, u, v, z, wait, cpus, rxStamp, rtPriority);
    }

    /**
     * Applies these overrides on top of {@code b} (the command line takes precedence over the file).
     * Bad values give a one-line {@link ConfigException} naming the option.
     */
    public void applyTo(ServerConfigBuilder b) throws ConfigException {
        try {
            if (authModes != null) {
                b.authModes(authModes);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: -a: " + ex.getMessage());
        }
        try {
            if (facility != null) {
                b.facility(facility);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: -e: " + ex.getMessage());
        }
        try {
            if (testPorts != null) {
                b.testPorts(testPorts);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: -P: " + ex.getMessage());
        }
        try {
            if (srcNode != null) {
                b.srcNode(srcNode);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: -S: " + ex.getMessage());
        }
        try {
            if (reflectorWait != null) {
                b.reflectorWait(reflectorWait);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: --reflector-wait: " + ex.getMessage());
        }
        try {
            if (cpus != null) {
                b.reflectorCpus(cpus);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: --cpu: " + ex.getMessage());
        }
        try {
            if (rxStamp != null) {
                b.reflectorRxStamp(rxStamp);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: --rx-stamp: " + ex.getMessage());
        }
        try {
            if (rtPriority != null) {
                b.reflectorRtPriority(rtPriority);
            }
        } catch (IllegalArgumentException ex) {
            throw new ConfigException("twampd: --rt-priority: " + ex.getMessage());
        }
        if (confDir != null) {
            b.confDir(confDir);
        }
        if (dataDir != null) {
            b.dataDir(dataDir);
        }
        if (varDir != null) {
            b.varDir(varDir);
        }
        if (group != null) {
            b.group(group);
        }
        if (user != null) {
            b.user(user);
        }
        if (rootFolly) {
            b.rootFolly(true);
        }
        if (verbose) {
            b.verbose(true);
        }
    }
}
