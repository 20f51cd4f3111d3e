package io.github.twping.report.extended;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import io.github.twping.report.owamp.HostInfo;
import io.github.twping.report.owamp.Language;
import io.github.twping.datafile.RecordSources;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.datafile.TwoWayRecord;
import java.io.Writer;

/**
 * Runs the result outputs of one session (docs/CLI.md, result outputs): the live writer thread during the
 * test ({@code --json-stream}, progress line), then at the end the {@code --exact} block, {@code --json},
 * {@code --csv}, {@code --html} and the stream's {@code end} event. Each output fails on its own: its
 * failure is one line on stderr, the others are still written, and {@link #finish} reports it so that the
 * run exits with {@link #EXIT_OUTPUT_FAILED}.
 */
public final class ResultOutputs {
    /** Exit status when a result output could not be written (the measurement and other outputs are complete). */
    public static final int EXIT_OUTPUT_FAILED = 4;

    private final ResultOptions options;
    private final String program;
    private final String version;
    private final Language language;
    private final char units;
    private final boolean humanSummary;
    private final boolean progress;
    private final PrintStream out;
    private final PrintStream err;
    private OutputTarget streamTarget;
    private StreamState stream;
    private volatile LiveResults live;
    private String protocol;
    private PacketTimestampSources reflectorSources;
    private StampTlvResults stampTlvs;
    private long senderSkips = -1;
    /** too short, failed HMAC, of another session, malformed TLV area, minimum length; null when unknown */
    private long[] badReplies;
    /** The TAI-UTC offset PTP timestamps used (0 = unknown); {@link Integer#MIN_VALUE}: no PTP timestamps */
    private int ptpTaiSeconds = Integer.MIN_VALUE;

    /**
     * @param humanSummary    the C human summary is printed (the {@code --exact} block goes under it)
     * @param machineOrQuiet  {@code -Q}, {@code -M} or {@code -R}: no progress line unless {@code --progress}
     */
    public ResultOutputs(ResultOptions options, String program, String version, Language language, char units,
                         boolean humanSummary, boolean machineOrQuiet, PrintStream out, PrintStream err) {
        this.options = options;
        this.program = program;
        this.version = version;
        this.language = language;
        this.units = units;
        this.humanSummary = humanSummary;
        this.out = out;
        this.err = err;
        this.progress = options.progress() != null ? options.progress()
                : !machineOrQuiet && err == System.err && Terminal.isTerminal(2);
    }

    /**
     * Names the protocol of a measurement in the JSON outputs and the HTML page; call before {@link #startLive}.
     *
     * @param protocol         {@code twamp}, {@code stamp} or {@code light}
     * @param reflectorSources the reflector's t2/t3 sources for the packet events (STAMP), or null
     */
    public ResultOutputs protocol(String protocol, PacketTimestampSources reflectorSources) {
        this.protocol = protocol;
        this.reflectorSources = reflectorSources;
        return this;
    }

    /** The STAMP TLV results for {@code --json}, the {@code end} event and {@code --html}; call before {@link #finish}. */
    public ResultOutputs stampTlvs(StampTlvResults results) {
        this.stampTlvs = results;
        return this;
    }

    /**
     * The packets the sender did not send because it was more than the loss timeout behind schedule (a fault of
     * the measuring host, not network loss): a line of the {@code --exact} block and {@code sender_skips} in
     * the JSON outputs; call before {@link #finish}. Unknown (no line, no field) for a re-reported file.
     */
    public ResultOutputs senderSkips(long count) {
        this.senderSkips = count;
        return this;
    }

    /**
     * The replies the receiver did not use (docs/CLI.md, result outputs): shorter than {@code minimumLength}, failed
     * HMAC, of another session; and those used although their TLV area did not parse. Lines of the {@code --exact}
     * block when any were seen, {@code bad_replies} in the JSON outputs; call before {@link #finish}.
     */
    public ResultOutputs badReplies(long tooShort, long badHmac, long foreign, long malformed, int minimumLength) {
        this.badReplies = new long[] {tooShort, badHmac, foreign, malformed, minimumLength};
        return this;
    }

    /**
     * PTP-format timestamps were in use with this TAI-UTC offset (0: unknown, the kernel reported 0):
     * {@code ptp_tai_offset_s} in the JSON outputs (null when unknown); call before {@link #finish}.
     */
    public ResultOutputs ptpTaiOffset(int taiSeconds) {
        this.ptpTaiSeconds = taiSeconds;
        return this;
    }

    /** The fields this class adds to the result document and the stream's end event. */
    private void addFields(ObjectNode document) {
        if (badReplies != null) {
            ObjectNode b = document.putObject("bad_replies");
            b.put("minimum_length", badReplies[4]);
            b.put("too_short", badReplies[0]);
            b.put("bad_hmac", badReplies[1]);
            b.put("foreign", badReplies[2]);
            b.put("malformed", badReplies[3]);
        }
        if (ptpTaiSeconds != Integer.MIN_VALUE) {
            if (ptpTaiSeconds == 0) {
                document.putNull("ptp_tai_offset_s");
            } else {
                document.put("ptp_tai_offset_s", ptpTaiSeconds);
            }
        }
    }

    /** The {@code --exact} lines of {@link #badReplies}, when any were seen. */
    private void badReplyLines(StringBuilder block) {
        if (badReplies == null || badReplies[0] + badReplies[1] + badReplies[2] + badReplies[3] == 0) {
            return;
        }
        boolean ru = language == Language.RU;
        block.append(ru ? "ответы не использованы: короче " : "replies not used: shorter than ").append(badReplies[4])
                .append(ru ? " октетов " : " octets ").append(badReplies[0])
                .append(ru ? ", неверный HMAC " : ", failed HMAC ").append(badReplies[1])
                .append(ru ? ", чужая сессия " : ", of another session ").append(badReplies[2]).append('\n');
        block.append(ru ? "ответы с испорченными TLV (использованы): " : "replies with a malformed TLV area (used): ")
                .append(badReplies[3]).append('\n');
    }

    /** @return true when {@code --json}, {@code --json-stream} or {@code --html} is written (they show the TLVs) */
    public boolean showsStampTlvs() {
        return options.json() != null || options.jsonStream() != null || options.html() != null;
    }

    /** @return true when the progress line is drawn */
    public boolean progressEnabled() {
        return progress;
    }

    /**
     * Starts the writer thread of a running test (when {@code --json-stream} or the progress line asks for it).
     *
     * @param visibleRecords   records on disk ({@code SessionDataWriter::visibleRecords})
     * @param sources          the session's side table
     * @param sequencesHandled packets the sender has handled so far
     * @param nowNtp           the wall clock
     * @param durationSeconds  the expected duration (as in the "Approximately" line)
     */
    public void startLive(FileChannel channel, SessionHeader header, LongSupplier visibleRecords, RecordSources sources,
                          LongSupplier sequencesHandled, LongSupplier nowNtp, double durationSeconds) {
        if (options.jsonStream() == null && !progress) {
            return;
        }
        openStream(header);
        Map<String, String> environment = System.getenv();
        IntSupplier columns = err == System.err ? () -> Terminal.columns(2, environment)
                : () -> Terminal.columns(-1, environment);
        live = new LiveResults(new LiveResults.Source(channel, header, visibleRecords, sources, sequencesHandled, nowNtp,
                durationSeconds), stream, progress ? err : null, columns, program);
        live.start();
    }

    private void openStream(SessionHeader header) {
        if (options.jsonStream() != null) {
            streamTarget = OutputTarget.open(options.jsonStream(), out);
        }
        stream = new StreamState(header, streamTarget, options.streamPackets(), options.intervalSeconds(), protocol,
                reflectorSources);
        stream.start(program, version, options.intervalSeconds());
    }

    /**
     * Erases the progress line before a diagnostic on the same terminal. Call it holding the monitor of the
     * stderr stream given to the constructor, and print the diagnostic inside the same block.
     */
    public void clearProgress() {
        LiveResults l = live;
        if (l != null) {
            l.clearProgress();
        }
    }

    /** Stops the writer thread (after a last read of the data file); safe to call when none runs. */
    public void stopLive() {
        if (live != null) {
            live.stop();
        }
    }

    /**
     * Writes every end-of-session output from the finished data file.
     *
     * @param reader   the data file
     * @param sources  the measurement's side table, or null (re-reported file)
     * @param hosts    header names, or null for the numeric ones
     * @param origin   {@link SessionResults#MEASUREMENT} or {@link SessionResults#FILE}
     * @param dataFile the {@code -F}/{@code --report} path, or null
     * @param bucketWidthSeconds {@code -b}
     * @return true when every output was written
     */
    public boolean finish(SessionDataReader reader, RecordSources sources, HostInfo hosts, String origin,
                          String dataFile, float bucketWidthSeconds) {
        stopLive();
        List<String> failures = new ArrayList<>();
        if (live != null && live.failure() != null) {
            failures.add(live.failure());
        }
        SessionResults results = SessionResults.compute(reader, sources, hosts, origin, dataFile, program, version,
                bucketWidthSeconds);
        if (options.exact() && humanSummary) {
            PrintStream text = options.jsonToStdout() ? err : out;          // under the summary, wherever it went
            StringBuilder block = ExactBlockWriter.write(new StringBuilder(), results.exact(), language, units);
            if (senderSkips >= 0) {
                block.append(language == Language.RU ? "пропущено отправителем (отставание от расписания больше L): "
                        : "sender skips (more than L behind schedule, not sent): ").append(senderSkips).append('\n');
            }
            badReplyLines(block);
            byte[] bytes = bytes(block.toString());
            text.write(bytes, 0, bytes.length);
            text.flush();
        }
        if (options.jsonStream() != null) {
            if (stream == null) {                                   // re-reported file: replay the records
                openStream(reader.header());
                TwoWayRecord r = new TwoWayRecord();
                for (long i = 0; i < reader.recordCount(); i++) {
                    reader.read(i, r);
                    stream.accept(i, r, SessionResults.source(sources, i));
                }
            }
            stream.emitInterval();
            stream.end(results, stampTlvs, this::addFields);
            streamTarget.close();
            addFailure(failures, streamTarget);
        }
        if (options.json() != null) {
            OutputTarget t = OutputTarget.open(options.json(), out);
            if (!t.failed()) {
                try {
                    ObjectNode document = ResultJson.document(results, protocol, stampTlvs);
                    if (senderSkips >= 0) {
                        document.put("sender_skips", senderSkips);
                    }
                    addFields(document);
                    byte[] doc = ResultJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(document);
                    t.write(doc, false);
                    t.write(new byte[] {'\n'}, true);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            t.close();
            addFailure(failures, t);
        }
        if (options.csv() != null) {
            OutputTarget t = OutputTarget.open(options.csv(), out);
            if (!t.failed()) {
                try (Writer w = t.writer()) {
                    CsvWriter.write(w, reader, sources);
                } catch (IOException e) {
                    throw new IllegalStateException(e);             // the writer records failures, never throws
                }
            }
            t.close();
            addFailure(failures, t);
        }
        if (options.html() != null) {
            OutputTarget t = OutputTarget.open(options.html(), out);
            if (!t.failed()) {
                try (Writer w = t.writer()) {
                    HtmlReport.write(w, results, reader, protocol, stampTlvs);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            t.close();
            addFailure(failures, t);
        }
        for (String f : failures) {
            err.print(program + ": " + f + "\n");
        }
        err.flush();
        return failures.isEmpty();
    }

    private static void addFailure(List<String> failures, OutputTarget t) {
        if (t != null && t.failure() != null) {
            failures.add(t.failure());
        }
    }

    /** The bytes of a text (UTF-8). */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
