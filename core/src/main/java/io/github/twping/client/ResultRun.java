package io.github.twping.client;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Path;


import io.github.twping.report.owamp.HostInfo;
import io.github.twping.report.owamp.OutputOptions;
import io.github.twping.report.owamp.Reports;
import io.github.twping.report.extended.ResultOptions;
import io.github.twping.report.extended.ResultOutputs;
import io.github.twping.report.extended.SessionResults;
import io.github.twping.session.ClientTestSession;
import io.github.twping.session.ReceiverCounters;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.time.WallClock;

/**
 * Connects a twping run to the result outputs (docs/CLI.md, result outputs): starts the writer thread when
 * the test starts, writes the outputs after the C results, and runs {@code --report FILE.owp}.
 */
public final class ResultRun {
    private ResultRun() {
    }

    /** @return the result outputs of this run, or null when none is asked for and no progress line is drawn */
    static ResultOutputs create(TwpingOptions options, String program, PrintStream out, PrintStream err) {
        ResultOptions r = options.extras().results();
        OutputOptions o = Outputs.of(options, program);
        boolean machineOrQuiet = o.quiet() || o.machine() || o.raw() || options.output().quiet();
        ResultOutputs outputs = new ResultOutputs(r, program, r.toolVersion(), o.language(), o.units(),
                !o.quiet() && !o.machine() && !o.raw(), machineOrQuiet, out, err);
        if (r.reportFile() == null) {
            outputs.protocol(protocolName(options), null);
        }
        return r.exact() || r.explain() || r.anyWriter() || outputs.progressEnabled() ? outputs : null;
    }

    /** @return the {@code protocol} of the JSON outputs: {@code twamp}, {@code stamp} or {@code light} */
    static String protocolName(TwpingOptions options) {
        return switch (options.stamp().protocol()) {
            case STAMP -> "stamp";
            case LIGHT -> "light";
            case TWAMP -> "twamp";
        };
    }

    /**
     * Before the session starts: when an output shows the delay breakdown, the session keeps the client's extra
     * stamps of each record and the outputs read them (docs/STATISTICS.md, delay breakdown).
     */
    static void prepare(ResultOutputs outputs, ClientTestSession session) {
        if (outputs != null && outputs.showsBreakdown()) {
            outputs.recordStamps(session.keepStamps().recordStamps());
        }
    }

    /** Starts the writer thread for a running session. */
    static void startLive(ResultOutputs outputs, FileChannel channel, SessionHeader header, SessionDataWriter writer,
                          ClientTestSession session, WallClock clock, double durationSeconds) {
        if (outputs != null) {
            outputs.startLive(channel, header, writer::visibleRecords, session.recordSources(),
                    session::sequencesHandled, clock::nowNtp, durationSeconds);
        }
    }

    /**
     * Writes the end-of-session outputs from the finished data file.
     *
     * @return true when all were written (also when there are none)
     */
    static boolean finish(ResultOutputs outputs, TwpingOptions options, FileChannel channel, ClientTestSession session,
                          HostInfo hosts, PrintStream err, String program) {
        if (session != null && session.skippedCount() > 0) {
            err.print(program + ": " + session.skippedCount() + " packets were not sent: the sender was more than the"
                    + " loss timeout behind schedule (a fault of this host, not network loss; not in SENT)\n");
        }
        ReceiverCounters c = session == null ? null : session.counters();
        if (c != null) {
            String line = badRepliesLine(program, c, session.minimumReplyLength());
            if (line != null) {
                err.print(line);
            }
        }
        if (outputs == null) {
            return true;
        }
        if (session != null) {
            outputs.senderSkips(session.skippedCount());
            outputs.badReplies(c.tooShort(), c.badHmac(), c.foreign(), c.malformed(), session.minimumReplyLength());
        }
        try (SessionDataReader reader = SessionDataReader.open(channel)) {
            return outputs.finish(reader, session == null ? null : session.recordSources(), hosts,
                    SessionResults.MEASUREMENT, options.test().saveFile(), options.output().bucketWidthSeconds());
        } catch (IOException e) {
            outputs.stopLive();
            err.print(program + ": results: " + Reports.strerror(e) + "\n");
            return false;
        }
    }

    /**
     * @return the stderr line about the replies the receiver did not use or found malformed (docs/CLI.md), or null
     *         when there were none
     */
    static String badRepliesLine(String program, ReceiverCounters c, int minimumLength) {
        StringBuilder b = new StringBuilder();
        if (c.tooShort() > 0) {
            b.append(c.tooShort()).append(" shorter than the ").append(minimumLength).append(" octets of a reply");
        }
        if (c.badHmac() > 0) {
            b.append(b.isEmpty() ? "" : ", ").append(c.badHmac()).append(" failed the HMAC check");
        }
        if (c.foreign() > 0) {
            b.append(b.isEmpty() ? "" : ", ").append(c.foreign()).append(" of another session (SSID or Micro-session ID)");
        }
        String used = c.malformed() > 0 ? c.malformed() + " replies had a malformed TLV area (used)" : null;
        if (b.isEmpty() && used == null) {
            return null;
        }
        StringBuilder line = new StringBuilder(program).append(": ");
        if (!b.isEmpty()) {
            line.append(c.rejected()).append(" replies were not used (").append(b)
                    .append("); packets without another reply count as lost");
        }
        if (used != null) {
            line.append(b.isEmpty() ? "" : "; ").append(used);
        }
        return line.append('\n').toString();
    }

    /**
     * {@code twping --report FILE.owp [output options]}: prints the C results of a saved session (as the
     * flags select; on stderr when a JSON output goes to stdout) and writes the result outputs from it.
     *
     * @return 0, 1 when the file cannot be read, {@link ResultOutputs#EXIT_OUTPUT_FAILED} when an output failed
     */
    public static int report(TwpingOptions options, String program, PrintStream out, PrintStream err) {
        String file = options.extras().results().reportFile();
        OutputOptions o = Outputs.of(options, program);
        PrintStream cOut = options.extras().results().jsonToStdout() ? err : out;
        if (!Reports.writeFile(o, Path.of(file), null, cOut, err)) {
            return TwampRun.EXIT_FAILURE;
        }
        cOut.flush();
        ResultOutputs outputs = create(options, program, out, err);
        if (outputs == null) {
            return TwampRun.EXIT_OK;
        }
        try (SessionDataReader reader = SessionDataReader.open(Path.of(file))) {
            boolean ok = outputs.finish(reader, null, HostInfo.numericFrom(reader.header()), SessionResults.FILE, file,
                    options.output().bucketWidthSeconds());
            return ok ? TwampRun.EXIT_OK : ResultOutputs.EXIT_OUTPUT_FAILED;
        } catch (IOException e) {
            err.print(program + ": " + file + ": " + Reports.strerror(e) + "\n");
            return TwampRun.EXIT_FAILURE;
        }
    }
}
