package io.github.twping.cli;

import java.io.PrintStream;

/**
 * The usage text of twping: the C text byte for byte (docs/CLI.md) with our version line, then, for
 * {@code -h} and {@code --help}, the long options this port adds, grouped. An error in a short option prints
 * the C text as C does; an error in a long option prints one line and points to {@code --help}.
 */
public final class Usage {
    /** The C usage text from the {@code usage:} line up to the version block (every line ends with \n). */
    static final String C_TEXT = ""
            + "usage: twping [arguments] testaddr [servaddr]\n"
            + "[arguments] are as follows: \n"
            + "\n"
            + "   -h             print this message and exit\n"
            + "\n"
            + "              [Test Args]\n"
            + "\n"
            + "   -c count       number of test packets\n"
            + "   -D DSCP        RFC 2474 style DSCP value for TOS byte\n"
            + "   -F file        save results to file\n"
            + "   -i wait        mean average time between packets (seconds)\n"
            + "   -L timeout     maximum time to wait for a packet before declaring it lost (seconds)\n"
            + "   -P portrange   port range to use during the test\n"
            + "   -s padding     size of the padding added to each packet (bytes)\n"
            + "   -z delayStart  time to wait before executing test (seconds)\n"
            + "\n"
            + "              [Connection Args]\n"
            + "\n"
            + "   -A authmode    requested modes: [A]uthenticated, [E]ncrypted, [M]ixed, [O]pen\n"
            + "   -k passphrasefile     passphrasefile to use with Authenticated/Encrypted/Mixed modes\n"
            + "   -S srcaddr     specify the local address or interface for control connection and tests\n"
            + "   -B interface   specify the interface to use for control connection and tests\n"
            + "   -Z             do not specify IP addresses for tests packets (NAT traversal)\n"
            + "   -u username    username to use with Authenticated/Encrypted/Mixed modes\n"
            + "   -4             connect using IPv4 addresses only\n"
            + "   -6             connect using IPv6 addresses only\n"
            + "\n"
            + "              [Output Args]\n"
            + "\n"
            + "   -a alpha       report an additional percentile level for the delays\n"
            + "   -b bucketwidth bin size for histogram calculations\n"
            + "   -M             print machine (perl) readable summary\n"
            + "   -n units       'n','u','m', or 's'\n"
            + "   -N count       number of test packets (to summarize per sub-session)\n"
            + "   -Q             run the test and exit without reporting statistics\n"
            + "   -R             print RAW data: \"SSEQ STIME SS SERR SRTIME SRS SRERR STTL RSEQ RSTIME RSS RSERR RTIME RS RERR RTTL\\n\"\n"
            + "   -v[N]          print out individual delays. You can supply an optional N here to limit the print to the first N packets\n"
            + "   -U             Adds UNIX timestamps when printing individual delays\n";

    /**
     * The long options of this port, grouped, printed after the C text by {@code -h} and {@code --help}
     * (every line ends with \n; lines stay within 100 columns).
     */
    static final String LONG_OPTIONS_TEXT = ""
            + "Long options of this port (docs/CLI.md):\n"
            + "\n"
            + "              [Results beside the C outputs]\n"
            + "\n"
            + "   --exact                exact statistics (ns resolution, p50..p99.999) under the summary\n"
            + "   --json FILE|-          one JSON document at the end (docs/twping-result.schema.json)\n"
            + "   --json-stream FILE|-   NDJSON events while the test runs: start, interval, end\n"
            + "                          (docs/twping-json-stream.schema.json)\n"
            + "   --json-stream-packets  add one packet event per reply to --json-stream\n"
            + "   --interval SECONDS     length of the --json-stream intervals (default 1)\n"
            + "   --csv FILE             one row per packet (timestamps and delays in ns)\n"
            + "   --html FILE            a self-contained HTML report with charts\n"
            + "   --progress, --no-progress  live progress line on stderr (default: when stderr is a terminal)\n"
            + "   --report FILE          report a session file saved with -F instead of measuring (no testaddr)\n"
            + "   --explain              after the summary: the 3 slowest packets with their delay breakdown\n"
            + "                          and the component that dominated the p99 (docs/STATISTICS.md)\n"
            + "   With --json - or --json-stream -, stdout carries only JSON: the C outputs go to stderr.\n"
            + "\n"
            + "              [CI gates: exit status 3 when exceeded]\n"
            + "\n"
            + "   --max-loss PERCENT     round-trip loss above PERCENT\n"
            + "   --max-median-rtt MILLIS  exact median round-trip time (not the bucketed one) above MILLIS\n"
            + "\n"
            + "              [Other tests]\n"
            + "\n"
            + "   --loopback             test against an in-process server on 127.0.0.1 (no testaddr); prints\n"
            + "                          the --exact block by default\n"
            + "   --stamp HOST[:PORT]    STAMP (RFC 8762) to a Session-Reflector, no control connection (port 862)\n"
            + "   --light HOST[:PORT]    TWAMP-Light (RFC 5357 Appendix I) to a stateless reflector (port 862)\n"
            + "   --ptp                  with --stamp: timestamps in the PTPv2 format (Z flag)\n"
            + "   --ssid N               with --stamp: Session-Sender Identifier 0..65535 (RFC 8972)\n"
            + "   --tlv LIST             with --stamp: RFC 8972 TLVs ts,cos=DSCP,dm,ar=ID:CODE,fut,hmac or all\n"
            + "   --tlv-packets          with --tlv: one line per packet in the TLV report\n"
            + "   --ecn N                with --stamp/--light: ECN codepoint 0..3 of the test packets\n"
            + "   --agent FILE [--metrics-listen ADDR:PORT] [--json-stream FILE|-] [--interval SECONDS] [--check]\n"
            + "                          measure the targets of FILE continuously (docs/FLEET.md)\n"
            + "   --probe-timestamping [address]  report which socket timestamps the kernel provides and exit\n"
            + "\n"
            + "              [Timing and clock]\n"
            + "\n"
            + "   --spin MICROS|auto     busy-wait before each scheduled send (default auto: learnt from how\n"
            + "                          late the sleeps before it wake up, at most 100)\n"
            + "   --cpu LIST             run the sender and receiver threads on these CPUs (0 or 0,2-3)\n"
            + "   --rt-priority PRIO     run the sender and receiver threads under SCHED_FIFO at PRIO (1..99)\n"
            + "   --send-stamp kernel|user  send time: the kernel's TX timestamp (default) or the packet's stamp\n"
            + "   --sync                 treat the local clock as synchronised\n"
            + "   --esterror MICROS      local clock error estimate in microseconds; implies --sync\n"
            + "   --timeout SECONDS      time limit for connecting and for each control message (default none,\n"
            + "                          as C; use it in scripts)\n"
            + "\n"
            + "              [Other]\n"
            + "\n"
            + "   --lang en|ru           language of the summary and main messages (default: from the locale,\n"
            + "                          LC_ALL, LC_MESSAGES or LANG: ru for ru_*, else en)\n"
            + "   --help                 print this message and exit\n"
            + "   --version              print the version and exit\n"
            + "\n";

    /** The line after an error in a long option (the C usage text lists none of them). */
    static final String SEE_HELP = "Try '%s --help' for the long options and their values.\n";

    private Usage() {
    }

    /** @return the C usage text with {@code Version: <version>} (an empty line, the version line, an empty line) */
    public static String text(String version) {
        return C_TEXT + "\nVersion: " + version + "\n\n";
    }

    /** @return the {@code -h}/{@code --help} text: the C usage text followed by the long options */
    public static String helpText(String version) {
        return text(version) + LONG_OPTIONS_TEXT;
    }

    /**
     * Prints the usage as the C {@code usage()} does: {@code <prog>: <message>} first when a message is
     * given (an empty message prints {@code "twping: "}), then the usage text.
     *
     * @param message null for no message line
     */
    public static void print(PrintStream err, String progName, String message, String version) {
        StringBuilder sb = new StringBuilder();
        if (message != null) {
            sb.append(progName).append(": ").append(message).append('\n');
        }
        sb.append(text(version));
        err.print(sb);
        err.flush();
    }

    /**
     * After an error in a long option: {@code <prog>: <message>} when a message is given, then one line
     * pointing to {@code --help} instead of the C text (which lists no long option).
     *
     * @param message null for no message line
     */
    public static void printLongOptionError(PrintStream err, String progName, String message) {
        StringBuilder sb = new StringBuilder();
        if (message != null) {
            sb.append(progName).append(": ").append(message).append('\n');
        }
        sb.append(String.format(SEE_HELP, progName));
        err.print(sb);
        err.flush();
    }
}
