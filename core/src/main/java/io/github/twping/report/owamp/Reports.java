package io.github.twping.report.owamp;

import io.github.twping.datafile.DeltaSource;
import io.github.twping.datafile.InvalidDataFileException;
import io.github.twping.datafile.ScheduleDeltas;
import io.github.twping.datafile.SessionDataReader;
import io.github.twping.datafile.SessionHeader;
import io.github.twping.stats.owamp.SummaryResult;
import io.github.twping.datafile.TwoWayRecord;
import io.github.twping.stats.owamp.TwoWayStatistics;
import io.github.twping.time.StopTrace;

import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Façade that prints the results of a session from its data file (docs/STATISTICS.md): raw records,
 * machine or human summaries (with {@code -v} lines), {@code -N} sub-summaries and {@code -p}
 * files. Failures print the C diagnostics on {@code err}, prefixed with the program name; the
 * exit status of twping is 0 regardless (docs/CLI.md, exit statuses), so the return value is informational.
 */
public final class Reports {
    /** The line the twping front end prints after a failed statistics pass. */
    public static final String DO_STATS_FAILED = "do_stats(\"from\" session)";

    private Reports() {
    }

    /** Like {@link #writeFile(OutputOptions, Path, HostInfo, DeltaSource, PrintStream, PrintStream)} with the
     * schedule re-created from the file header. */
    public static boolean writeFile(OutputOptions opts, Path file, HostInfo hosts, PrintStream out,
                                    PrintStream err) {
        return writeFile(opts, file, hosts, null, out, err);
    }

    /** Like {@link #write(OutputOptions, SessionDataReader, HostInfo, DeltaSource, PrintStream, PrintStream)}
     * with the schedule re-created from the file header (SID, slots, N). */
    public static boolean write(OutputOptions opts, SessionDataReader data, HostInfo hosts, PrintStream out,
                                PrintStream err) {
        return write(opts, data, hosts, null, out, err);
    }

    /**
     * Opens {@code file} and prints its results; an unreadable file prints the C messages
     * ({@code _OWPReadDataHeaderInitial: Invalid owp file}, {@code OWPReadDataHeader: Invalid file?},
     * {@code do_stats("from" session)}).
     *
     * @param schedule the send schedule of the session ({@code null}: re-created from the header)
     * @return true if everything was printed
     */
    public static boolean writeFile(OutputOptions opts, Path file, HostInfo hosts, DeltaSource schedule,
                                    PrintStream out, PrintStream err) {
        return writeOpened(opts, () -> SessionDataReader.open(file), hosts, schedule, out, err, null);
    }

    /**
     * Like {@link #writeFile} for a data file open as a channel (e.g. the anonymous temporary file of
     * {@code SessionDataWriter.openAnonymousTempFile}); the channel stays open.
     */
    public static boolean writeChannel(OutputOptions opts, FileChannel channel, HostInfo hosts, DeltaSource schedule,
                                       PrintStream out, PrintStream err) {
        return writeChannel(opts, channel, hosts, schedule, out, err, null);
    }

    /**
     * As {@link #writeChannel(OutputOptions, FileChannel, HostInfo, DeltaSource, PrintStream, PrintStream)};
     * {@code written} (may be null) runs once the results are written and flushed, before the data file's mapping
     * is released (a shared arena's close, which can take milliseconds): twping's second Ctrl-C exits 0 from then
     * on (docs/CLI.md, signals). It does not run when the file could not be opened.
     */
    public static boolean writeChannel(OutputOptions opts, FileChannel channel, HostInfo hosts, DeltaSource schedule,
                                       PrintStream out, PrintStream err, Runnable written) {
        return writeOpened(opts, () -> SessionDataReader.open(channel), hosts, schedule, out, err, written);
    }

    /** Opens a data file. */
    @FunctionalInterface
    private interface ReaderSource {
        SessionDataReader open() throws IOException;
    }

    /** Opens the data file and prints it; an unreadable file prints the C messages of docs/CLI.md, exit statuses. */
    private static boolean writeOpened(OutputOptions opts, ReaderSource source, HostInfo hosts, DeltaSource schedule,
                                       PrintStream out, PrintStream err, Runnable written) {
        if (opts.quiet()) {
            return true;
        }
        try (SessionDataReader reader = source.open()) {
            boolean ok = write(opts, reader, hosts, schedule, out, err);
            out.flush();
            if (written != null) {
                written.run();
            }
            return ok;
        } catch (InvalidDataFileException e) {
            for (String line : e.diagnostics()) {
                diag(err, opts, line);
            }
            diag(err, opts, DO_STATS_FAILED);
            return false;
        } catch (IOException e) {
            diag(err, opts, "_OWPReadDataHeaderInitial: " + strerror(e));
            diag(err, opts, SessionDataReader.INVALID_FILE);
            diag(err, opts, DO_STATS_FAILED);
            return false;
        }
    }

    /**
     * Prints the results of an open data file.
     *
     * @param opts     output options
     * @param data     the data file
     * @param hosts    header strings (if {@code null}: numeric strings from the file header)
     * @param schedule the session's send schedule, or {@code null} to re-create it from the header
     * @param out      stdout
     * @param err      stderr
     * @return true if everything was printed, false after a statistics failure
     */
    public static boolean write(OutputOptions opts, SessionDataReader data, HostInfo hosts, DeltaSource schedule,
                                PrintStream out, PrintStream err) {
        if (opts.quiet()) {
            return true;
        }
        HostInfo h = hosts != null ? hosts : HostInfo.numericFrom(data.header());
        if (opts.raw()) {
            return writeRaw(opts, data, out, err);
        }
        SessionHeader header = data.header();
        DeltaSource deltas = schedule != null ? schedule : ScheduleDeltas.of(header);
        TwoWayStatistics engine = new TwoWayStatistics(header, deltas);
        SummaryResult result = new SummaryResult(opts.bucketWidth());
        List<String> diagnostics = new ArrayList<>();
        long n = header.packetCount();
        long step = (opts.subsession() > 0 && opts.subsession() < n) ? opts.subsession() : n;
        long begin = 0;
        long first = 0;
        do {
            long last = Math.min(n, first + step);
            PrintStream dest = out;
            Path tempFile = null;
            if (opts.perFile()) {
                tempFile = Path.of(prefix(opts) + u64z(header.startTimeNtp()) + ".i");
                try {
                    dest = new PrintStream(new FileOutputStream(tempFile.toFile()), false, StandardCharsets.UTF_8);
                } catch (FileNotFoundException e) {
                    diag(err, opts, "OWStatsParse: fopen(" + tempFile + "): " + strerror(e));
                    diag(err, opts, DO_STATS_FAILED); // the summary failed as a whole, as any statistics failure
                    return false;
                }
            }
            PerPacketWriter perPacket = null;
            if (opts.perPacket() && !opts.machine()) {
                StringBuilder sb = new StringBuilder(256);
                SummaryHeaderText.append(sb, SummaryLabels.of(opts.language()), h, header);
                emit(dest, sb);
                perPacket = new PerPacketWriter(dest, opts);
            }
            diagnostics.clear();
            boolean ok = engine.summarize(data, first, last, begin, opts.recordLimit(), perPacket, result,
                diagnostics);
            StopTrace.mark("statistics");
            if (perPacket != null) {
                perPacket.flush();
            }
            for (String line : diagnostics) {
                diag(err, opts, line);
            }
            if (!ok) {
                diag(err, opts, DO_STATS_FAILED);
                if (dest != out) {
                    dest.close();
                }
                return false;
            }
            StringBuilder sb = new StringBuilder(2048);
            if (opts.machine()) {
                MachineSummaryWriter.write(sb, header, result, h, opts);
            } else {
                HumanSummaryWriter.write(sb, header, result, h, opts);
            }
            emit(dest, sb);
            if (tempFile != null) {
                dest.close();
                if (!publish(opts, tempFile, result, out, err)) {
                    diag(err, opts, DO_STATS_FAILED);
                    return false;
                }
            }
            begin = result.nextBeginRecord();
            first = last;
        } while (first < n);
        out.flush();
        return true;
    }

    private static boolean writeRaw(OutputOptions opts, SessionDataReader data, PrintStream out, PrintStream err) {
        TwoWayRecord r = new TwoWayRecord();
        StringBuilder sb = new StringBuilder(32 * 1024);
        long count = data.recordCount();
        for (long i = 0; i < count; i++) {
            data.read(i, r);
            if (r.hasInvalidErrorEstimate()) {
                emit(out, sb);
                diag(err, opts, "OWPParseRecords: Invalid Data Record");
                diag(err, opts, DO_STATS_FAILED);
                return false;
            }
            RawRecordWriter.write(sb, r);
            if (sb.length() > 16 * 1024) {
                emit(out, sb);
            }
        }
        emit(out, sb);
        out.flush();
        return true;
    }

    private static boolean publish(OutputOptions opts, Path tempFile, SummaryResult r, PrintStream out,
                                   PrintStream err) {
        String finalName = prefix(opts) + u64z(r.startTimeNtp()) + "_" + u64z(r.endTimeNtp())
            + (opts.machine() ? ".sum" : ".txt");
        Path target = Path.of(finalName);
        try {
            Files.createLink(target, tempFile);
        } catch (IOException | UnsupportedOperationException e) {
            diag(err, opts, "OWStatsParse: link(" + tempFile + "," + finalName + "): " + strerror(e));
            deleteQuietly(tempFile);
            return false;
        }
        deleteQuietly(tempFile);
        StringBuilder sb = new StringBuilder(finalName.length() + 1).append(finalName).append('\n');
        emit(out, sb);
        return true;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // the temporary name stays behind; nothing else to do
        }
    }

    private static String prefix(OutputOptions opts) {
        return opts.directory() == null ? "" : opts.directory() + "/";
    }

    private static String u64z(long v) {
        return CFormat.u64ZeroPadded(new StringBuilder(20), v, 20).toString();
    }

    static void emit(PrintStream dest, StringBuilder sb) {
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        dest.write(bytes, 0, bytes.length);
        sb.setLength(0);
    }

    private static void diag(PrintStream err, OutputOptions opts, String line) {
        err.print(opts.programName() + ": " + line + "\n");
        err.flush();
    }

    /** @return the C {@code strerror} text for a Java I/O failure on a file (as C prints after {@code fopen(...)}). */
    public static String strerror(Exception e) {
        if (e instanceof NoSuchFileException || e instanceof FileNotFoundException && String.valueOf(
            e.getMessage()).contains("No such file")) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException
            || e instanceof FileNotFoundException && String.valueOf(e.getMessage()).contains("Permission denied")) {
            return "Permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "File exists";
        }
        if (e instanceof UnsupportedOperationException) {
            return "Operation not supported";
        }
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }
}
