package io.github.twping.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;

/**
 * Reads configuration and key files with a bound on their size, so that {@code -k /dev/zero} or a
 * runaway file ends with one line instead of an {@link OutOfMemoryError}.
 *
 * <p>Two policies: {@link #readRegular} (the server's configuration directory) refuses anything that is
 * not a regular file before opening it, so a FIFO never blocks start-up; {@link #readBounded} (the client's
 * {@code -k}) also reads pipes and devices, such as {@code -k <(pfstore ...)}, but stops at the bound.
 */
public final class BoundedFile {
    /** The largest configuration or key file read: far above any real pfs/limits/conf file. */
    public static final int MAX_BYTES = 4 << 20;

    /** Why a file was not read, with the C-style reason ({@code strerror} wording). */
    public static final class Refused extends IOException {
        private final String reason;

        Refused(String reason) {
            super(reason);
            this.reason = reason;
        }

        /** The reason, e.g. {@code No such file or directory}, {@code File too large}. */
        public String reason() {
            return reason;
        }

        /** True when the file was too large (as opposed to missing or unreadable). */
        public boolean tooLarge() {
            return TOO_LARGE.equals(reason);
        }
    }

    static final String TOO_LARGE = "File too large";

    private BoundedFile() {
    }

    /**
     * Reads a regular file of at most {@code maxBytes}. Symbolic links are followed; a directory, FIFO,
     * socket or device is refused without being opened.
     *
     * @throws Refused with the reason when the file is missing, not regular, unreadable or too large
     */
    public static byte[] readRegular(Path file, int maxBytes) throws Refused {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            throw new Refused(reason(e));
        }
        if (attrs.isDirectory()) {
            throw new Refused("Is a directory");
        }
        if (!attrs.isRegularFile()) {
            throw new Refused("Not a regular file");
        }
        if (attrs.size() > maxBytes) {
            throw new Refused(TOO_LARGE);
        }
        return readBounded(file, maxBytes);
    }

    /**
     * Reads at most {@code maxBytes} from any readable file (regular, pipe or device).
     *
     * @throws Refused when it is missing or unreadable, or when it holds more than {@code maxBytes}
     */
    public static byte[] readBounded(Path file, int maxBytes) throws Refused {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[(int) Math.min(maxBytes + 1L, 8192)];
            int n = 0;
            while (true) {
                if (n == buf.length) {
                    if (buf.length > maxBytes) {
                        throw new Refused(TOO_LARGE);
                    }
                    buf = Arrays.copyOf(buf, (int) Math.min(maxBytes + 1L, (long) buf.length * 2));
                }
                int r = in.read(buf, n, buf.length - n);
                if (r < 0) {
                    return Arrays.copyOf(buf, n);
                }
                n += r;
                if (n > maxBytes) {
                    throw new Refused(TOO_LARGE);
                }
            }
        } catch (Refused e) {
            throw e;
        } catch (IOException e) {
            throw new Refused(reason(e));
        }
    }

    /** Whether {@code file} exists (following links); a dangling link counts as missing. */
    public static boolean exists(Path file) {
        return Files.exists(file, new LinkOption[0]);
    }

    /** The {@code strerror} wording for an I/O exception from {@code java.nio.file}. */
    public static String reason(IOException e) {
        if (e instanceof Refused r) {
            return r.reason();
        }
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        String m = e.getMessage();
        if (m != null && m.endsWith("Is a directory")) {
            return "Is a directory";
        }
        return m == null ? "Input/output error" : m;
    }
}
