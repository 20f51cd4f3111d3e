package io.github.twping.client;

import io.github.twping.config.DscpParser;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import io.github.twping.schedule.ScheduleSlot;
import io.github.twping.datafile.SessionDataWriter;
import io.github.twping.datafile.SessionHeader;
import java.nio.file.LinkOption;

/**
 * The run's session data file (docs/STATISTICS.md, data file): {@code -F} or an anonymous temporary file
 * in {@link #tempDirectory(Map)}. Opened before the session is requested, written by the session, read back
 * by the reports, closed when the run ends; a {@code -F} file is deleted when the test fails.
 */
final class SessionDataFile implements AutoCloseable {
    private final FileChannel channel;
    private final Path saveFile;

    private SessionDataFile(FileChannel channel, Path saveFile) {
        this.channel = channel;
        this.saveFile = saveFile;
    }

    /** @return the directory of the anonymous data file: {@code $TMPDIR}, else {@code /tmp} (docs/CLI.md). */
    static Path tempDirectory(Map<String, String> environment) {
        String tmp = environment.get("TMPDIR");
        return Path.of(tmp == null || tmp.isEmpty() ? "/tmp" : tmp);
    }

    /** Opens {@code -F} (created or truncated) or an anonymous file; null after a diagnostic when it cannot. */
    static SessionDataFile open(RunContext run, Path tempDirectory) {
        String name = run.test().saveFile();
        if (name != null && name.isEmpty()) {
            run.diag("fopen(): No such file or directory"); // fopen("") is ENOENT; Path.of("") would be "."
            return null;
        }
        Path saveFile = name == null ? null : Path.of(name);
        if (saveFile != null && Files.isDirectory(saveFile)) {
            run.diag("fopen(" + name + "): Is a directory");
            return null;
        }
        try {
            FileChannel channel = saveFile != null
                    ? FileChannel.open(saveFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING)
                    : SessionDataWriter.openAnonymousTempFile(tempDirectory);
            return new SessionDataFile(channel, saveFile);
        } catch (IOException e) {
            run.diag(saveFile != null
                    ? "fopen(" + name + "): " + TwampRun.strerror(e)
                    : "mkstemp(" + tempDirectory.resolve("owamp.XXXXXX") + "): " + TwampRun.strerror(e));
            return null;
        }
    }

    /** @return true for {@code -F} (the start time then leaves time to write it, docs/CLI.md) */
    boolean isSaved() {
        return saveFile != null;
    }

    FileChannel channel() {
        return channel;
    }

    /**
     * Writes the header and returns the writer the session appends records with; null without packets
     * ({@code -c 0}) or, after a diagnostic, when the header cannot be written.
     */
    SessionDataWriter startWriter(RunContext run, SessionHeader header) {
        if (run.test().packetCount() == 0) {
            return null;
        }
        try {
            // -F's file is synced at the end; the anonymous one is deleted at the end, a sync would only cost time
            return SessionDataWriter.onChannel(channel, header, SessionDataWriter.DEFAULT_BATCH_RECORDS)
                    .syncOnFinish(isSaved());
        } catch (IOException e) {
            // C's texts for a failed write (e.g. -F /dev/full) are not recorded: the nearest C-style line first
            run.diag("OWPWriteDataHeader: fwrite(): " + TwampRun.strerror(e));
            run.diag("run_tw_test: Unable to write data file header");
            return null;
        }
    }

    /** The data file's header of a session (docs/STATISTICS.md): addresses, ports, timing and the schedule. */
    static SessionHeader header(byte[] sid, int ipvn, InetSocketAddress local, InetSocketAddress reflector,
                                TwpingOptions.Test test, long startTimeNtp, long lossTimeoutNtp,
                                ScheduleSlot[] slots) {
        boolean[] fixed = new boolean[slots.length];
        long[] values = new long[slots.length];
        for (int i = 0; i < slots.length; i++) {
            fixed[i] = slots[i].fixed();
            values[i] = slots[i].valueNtp();
        }
        return new SessionHeader(sid, ipvn, local.getAddress().getAddress(), local.getPort(),
                reflector.getAddress().getAddress(), reflector.getPort(), test.packetCount(),
                test.paddingBytes(), startTimeNtp, lossTimeoutNtp, DscpParser.typeP(test.dscp()), fixed, values,
                SessionHeader.FINISHED_INCOMPLETE);
    }

    /**
     * Deletes a {@code -F} file after a failed test (the C client leaves no partial file); only a regular
     * file: {@code -F /dev/full} must not remove the device.
     */
    void discard() {
        if (saveFile != null && Files.isRegularFile(saveFile, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.deleteIfExists(saveFile);
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing to add
        }
    }
}
