package io.github.twping.cli;

import java.io.PrintStream;

/**
 * The usage text of twping: the C text byte for byte (docs/CLI.md) with our version line, and, for
 * {@code --help} only, a section on the long options this port adds.
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

    /** The extra long options, printed by {@code --help} after the C text. */
    static final String LONG_OPTIONS_TEXT = ""
            + "Long options (this port):\n"
            + "\n"
            + "   --help                 print this message, including the long options, and exit\n"
            + "   --version              print the version and exit\n"
            + "   --lang en|ru           language of the human-readable summary (default en)\n"
            + "   --spin MICROS|auto     busy-wait window before each scheduled send (default 100; auto: learnt\n"
            + "                          from how late the sleeps before it wake up)\n"
            + "   --cpu LIST             run the sender and receiver threads on these CPUs (e.g. 0 or 0,2-3)\n"
            + "   --rt-priority PRIO     run the sender and receiver threads under SCHED_FIFO at PRIO (1..99)\n"
            + "   --send-stamp kernel|user  send time: the kernel's TX timestamp (default) or the stamp in the packet\n"
            + "   --sync                 treat the local clock as synchronised\n"
            + "   --esterror MICROS      local clock error estimate in microseconds; implies --sync\n"
            + "   --timeout SECONDS      time limit for connecting and for each control message (default none,\n"
            + "                          as C: a silent server then blocks until TCP fails or a signal; use this\n"
            + "                          in scripts)\n"
            + "   --max-loss PERCENT     exit with status 3 when the round-trip loss exceeds PERCENT\n"
            + "   --max-median-rtt MILLIS exit with status 3 when the median round-trip time exceeds MILLIS\n"
            + "   --loopback             test against an in-process server on 127.0.0.1 (no testaddr)\n"
            + "   --probe-timestamping [address]  report which socket timestamping the kernel provides and exit\n"
            + "   --stamp HOST[:PORT]    STAMP (RFC 8762) to a Session-Reflector, no control connection (port 862)\n"
            + "   --light HOST[:PORT]    TWAMP-Light (RFC 5357 Appendix I) to a stateless reflector (port 862)\n"
            + "   --ptp                  with --stamp: timestamps in the PTPv2 format (Z flag)\n"
            + "   --ssid N               with --stamp: Session-Sender Identifier 0..65535 (RFC 8972)\n"
            + "   --tlv list             with --stamp: RFC 8972 TLVs ts,cos=DSCP,dm,ar=ID:CODE,fut,hmac or all\n"
            + "   --tlv-packets          with --tlv: one line per packet in the TLV report\n"
            + "   --ecn N                with --stamp/--light: ECN codepoint 0..3 of the test packets (RFC 3168)\n"
            + "   --exact                print exact statistics (ns resolution) under the summary\n"
            + "   --json FILE|-          write the results as one JSON document (docs/twping-result.schema.json)\n"
            + "   --json-stream FILE|-   write NDJSON events while the test runs (start, interval, end)\n"
            + "   --json-stream-packets  add one packet event per reply to --json-stream\n"
            + "   --interval SECONDS     interval of the --json-stream interval events (default 1)\n"
            + "   --csv FILE             write one row per packet (timestamps and delays in ns)\n"
            + "   --html FILE            write a self-contained HTML report with charts\n"
            + "   --progress, --no-progress  show or hide the live progress line (default: when stderr is a terminal)\n"
            + "   --report FILE          re-report a session file saved with -F instead of measuring (no testaddr)\n"
            + "   --agent FILE [--metrics-listen ADDR:PORT] [--json-stream FILE|-] [--interval SECONDS] [--check]\n"
            + "                          measure the targets of FILE continuously (docs/FLEET.md)\n"
            + "\n";

    private Usage() {
    }

    /** @return the C usage text with {@code Version: <version>} (an empty line, the version line, an empty line) */
    public static String text(String version) {
        return C_TEXT + "\nVersion: " + version + "\n\n";
    }

    /** @return the {@code --help} text: the C usage text followed by the long options */
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
}
