package io.github.twping.report.extended;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import io.github.twping.report.owamp.Reports;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;

/**
 * Where one result output goes: a file (created or truncated) or standard output ({@code -}). The first
 * failure is kept as one line for the diagnostics; later writes are dropped.
 */
final class OutputTarget implements AutoCloseable {
    private final String name;
    private final OutputStream stream;
    private final PrintStream stdout;
    private String failure;

    private OutputTarget(String name, OutputStream stream, PrintStream stdout, String failure) {
        this.name = name;
        this.stream = stream;
        this.stdout = stdout;
        this.failure = failure;
    }

    /** Opens {@code path} ({@code -} = {@code out}); an unopenable file gives a failed target. */
    static OutputTarget open(String path, PrintStream out) {
        if (ResultOptions.STDOUT.equals(path)) {
            return new OutputTarget("stdout", out, out, null);
        }
        try {
            return new OutputTarget(path, new BufferedOutputStream(Files.newOutputStream(Path.of(path)), 1 << 16), null,
                    null);
        } catch (IOException | RuntimeException e) {
            return new OutputTarget(path, null, null, "fopen(" + path + "): " + reason(e));
        }
    }

    /** @return the failure line, or null */
    String failure() {
        return failure;
    }

    boolean failed() {
        return failure != null;
    }

    /** Writes and (when {@code flush}) flushes; records the first failure. */
    void write(byte[] bytes, boolean flush) {
        if (failure != null) {
            return;
        }
        try {
            stream.write(bytes);
            if (flush) {
                stream.flush();
            }
            if (stdout != null && stdout.checkError()) {
                failure = "write(" + name + "): I/O error";
            }
        } catch (IOException e) {
            failure = "write(" + name + "): " + reason(e);
        }
    }

    /** @return a Writer-like sink for the text writers (UTF-8) that records failures instead of throwing */
    Writer writer() {
        OutputTarget self = this;
        return new Writer() {
            private final StringBuilder pending = new StringBuilder(1 << 16);

            @Override
            public void write(char[] cbuf, int off, int len) {
                pending.append(cbuf, off, len);
                if (pending.length() >= 1 << 16) {
                    flush();
                }
            }

            @Override
            public Writer append(CharSequence csq) {
                pending.append(csq);
                if (pending.length() >= 1 << 16) {
                    flush();
                }
                return this;
            }

            @Override
            public void write(String str) {
                append(str);
            }

            @Override
            public void flush() {
                self.write(pending.toString().getBytes(StandardCharsets.UTF_8), false);
                pending.setLength(0);
            }

            @Override
            public void close() {
                flush();
            }
        };
    }

    @Override
    public void close() {
        if (stream == null) {
            return;
        }
        try {
            stream.flush();
            if (stdout != null && stdout.checkError() && failure == null) {
                failure = "write(" + name + "): I/O error";
            }
        } catch (IOException e) {
            if (failure == null) {
                failure = "write(" + name + "): " + reason(e);
            }
        }
        if (stdout == null) {
            try {
                stream.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = "close(" + name + "): " + reason(e);
                }
            }
        }
    }

    static String reason(Exception e) {
        String text = Reports.strerror(e);
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            text = fse.getReason();
        }
        return text;
    }
}
