package io.github.twping.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A pass-phrase store ("pfs") file: one {@code <identity> <hex pass-phrase>} entry per line, as written
 * by {@code pfstore} and read by twping ({@code -k}) and twampd ({@code twamp-server.pfs}).
 *
 * <p>Syntax (docs/CLI.md, pfs file format): lines whose first non-white character is {@code #} are comments, white-space-only
 * lines are blank; any other line must not start with white space ({@code Leading spaces not allowed:
 * line <n>}, n = 0-based line index); the identity ends at the first white space, at least one white
 * space separates it from the hex field; the hex field must be non-empty, of even length and the last
 * token on the line; it decodes to the pass-phrase <em>bytes</em>.
 *
 * <p>Lookups scan the file as the C library does: lines before the match are checked only up to the
 * separator, the matching line completely, lines after it not at all. User errors are returned as
 * {@link Lookup} values, never thrown.
 */
public final class PassphraseStore {
    private final String fileName;
    private final byte[] content;

    private PassphraseStore(String fileName, byte[] content) {
        this.fileName = fileName;
        this.content = content;
    }

    /**
     * Outcome of {@link #open(Path)}: a store, or the C message {@code Unable to open <file>: <strerror>}.
     * {@code fatal} marks a file larger than {@link BoundedFile#MAX_BYTES}: the caller stops (status 1)
     * instead of dropping the identity.
     */
    public record Opened(PassphraseStore store, String error, boolean fatal) {
        Opened(PassphraseStore store, String error) {
            this(store, error, false);
        }

        /** @return true when the file was read */
        public boolean ok() {
            return store != null;
        }
    }

    /** Outcome of a lookup. */
    public sealed interface Lookup permits Found, NotFound, SyntaxError {
    }

    /** The identity was found; {@code passphrase} is the decoded bytes (a fresh copy per lookup). */
    public record Found(String identity, byte[] passphrase) implements Lookup {
    }

    /** No line matched. */
    public record NotFound() implements Lookup {
    }

    /**
     * The file is malformed at {@code lineIndex} (0-based). {@code message} is what the C library prints
     * for this error ({@code Leading spaces not allowed: line 0}, {@code Invalid key: not hex?}), or null
     * where it prints nothing; {@link #describe()} always gives a readable text.
     */
    public record SyntaxError(int lineIndex, String message, String reason) implements Lookup {
        /** @return a human-readable description including the line, for logs */
        public String describe() {
            return (message != null ? message : reason) + " (line " + lineIndex + ")";
        }
    }

    /**
     * The start-up warning for a pass-phrase file that group or others can read or write (ssh refuses such key
     * files; the C programs say nothing, and refusing would break working set-ups, so this warns): null when the
     * file is private, is not a regular file, is missing, or its permissions cannot be read.
     *
     * @param name the file as the user gave it, for the message
     */
    public static String exposureWarning(Path file, String name) {
        Set<PosixFilePermission> perms;
        try {
            if (!Files.isRegularFile(file)) {
                return null;
            }
            perms = Files.getPosixFilePermissions(file);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
        if (Collections.disjoint(perms, EXPOSED)) {
            return null;
        }
        int mode = 0;
        for (PosixFilePermission p : perms) {
            mode |= 0400 >> p.ordinal();  // the enum's order is owner r w x, group r w x, others r w x
        }
        return String.format("WARNING: pass-phrase file %s can be read or written by group or others (mode %04o);"
                + " chmod go-rw %s", name, mode, name);
    }

    private static final Set<PosixFilePermission> EXPOSED = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    /**
     * Reads a store from a regular file only (the server's {@code twamp-server.pfs}: a FIFO or device is
     * refused without being opened, so start-up never blocks).
     */
    public static Opened openRegular(Path file) {
        try {
            return new Opened(new PassphraseStore(file.toString(), BoundedFile.readRegular(file, BoundedFile.MAX_BYTES)),
                    null);
        } catch (BoundedFile.Refused e) {
            return new Opened(null, "Unable to open " + file + ": " + e.reason(), e.tooLarge());
        }
    }

    /** Reads a store from a file; never throws for missing or unreadable files. */
    public static Opened open(Path file) {
        return open(file, file.toString());
    }

    /**
     * Reads a store from a file, naming it {@code name} in messages (the path as the user typed it).
     */
    public static Opened open(Path file, String name) {
        try {
            if (Files.isDirectory(file)) {
                // fopen(dir, "r") succeeds in C and reading yields nothing.
                return new Opened(new PassphraseStore(name, new byte[0]), null);
            }
            return new Opened(new PassphraseStore(name, BoundedFile.readBounded(file, BoundedFile.MAX_BYTES)), null);
        } catch (BoundedFile.Refused e) {
            return new Opened(null, "Unable to open " + name + ": " + e.reason(), e.tooLarge());
        } catch (SecurityException e) {
            return new Opened(null, "Unable to open " + name + ": Permission denied");
        }
    }

    /** Builds a store from file content (for tests and embedded servers). */
    public static PassphraseStore of(String fileName, byte[] content) {
        return new PassphraseStore(fileName, content.clone());
    }

    /** @return the file name as given to {@link #open(Path)} */
    public String fileName() {
        return fileName;
    }

    /**
     * Client lookup with the C quirk: a line matches when its identity and {@code id} agree on their
     * first {@code min(len(line identity), len(id))} bytes, i.e. either is a prefix of the other; the
     * first match wins. An empty {@code id} matches nothing.
     */
    public Lookup lookupPrefix(String id) {
        byte[] query = id.getBytes(StandardCharsets.UTF_8);
        LineScanner scanner = new LineScanner(content);
        while (scanner.next()) {
            if (scanner.leadingSpace) {
                return new SyntaxError(scanner.lineIndex, "Leading spaces not allowed: line " + scanner.lineIndex,
                        "leading white space");
            }
            int idLen = identityLength(scanner);
            if (scanner.from + idLen >= scanner.to) {
                return new SyntaxError(scanner.lineIndex, null, "no white space after the identity");
            }
            if (query.length == 0 || !prefixEqual(scanner.from, idLen, query)) {
                continue;
            }
            return decodeEntry(scanner, idLen);
        }
        return new NotFound();
    }

    /**
     * Server lookup: every entry of the file is validated (as the C server does when it loads the whole
     * file) and the identity must match exactly.
     */
    public Lookup lookupExact(String id) {
        List<Found> all = new ArrayList<>();
        Optional<SyntaxError> error = parseAll(all);
        if (error.isPresent()) {
            return error.get();
        }
        for (Found f : all) {
            if (f.identity().equals(id)) {
                return f;
            }
        }
        return new NotFound();
    }

    /**
     * Parses every entry strictly.
     *
     * @param out receives the entries in file order
     * @return the first syntax error, if any (entries before it are in {@code out})
     */
    public Optional<SyntaxError> parseAll(List<Found> out) {
        LineScanner scanner = new LineScanner(content);
        while (scanner.next()) {
            if (scanner.leadingSpace) {
                return Optional.of(new SyntaxError(scanner.lineIndex,
                        "Leading spaces not allowed: line " + scanner.lineIndex, "leading white space"));
            }
            int idLen = identityLength(scanner);
            if (scanner.from + idLen >= scanner.to) {
                return Optional.of(new SyntaxError(scanner.lineIndex, null, "no white space after the identity"));
            }
            Lookup entry = decodeEntry(scanner, idLen);
            if (entry instanceof SyntaxError e) {
                return Optional.of(e);
            }
            out.add((Found) entry);
        }
        return Optional.empty();
    }

    private boolean prefixEqual(int lineFrom, int idLen, byte[] query) {
        int n = Math.min(idLen, query.length);
        return Arrays.equals(content, lineFrom, lineFrom + n, query, 0, n);
    }

    private int identityLength(LineScanner s) {
        int i = s.from;
        while (i < s.to && !CNumbers.isSpace(content[i] & 0xFF)) {
            i++;
        }
        return i - s.from;
    }

    private Lookup decodeEntry(LineScanner s, int idLen) {
        int i = s.from + idLen;
        while (i < s.to && CNumbers.isSpace(content[i] & 0xFF)) {
            i++;
        }
        int hexFrom = i;
        while (i < s.to && !CNumbers.isSpace(content[i] & 0xFF)) {
            i++;
        }
        int hexLen = i - hexFrom;
        while (i < s.to && CNumbers.isSpace(content[i] & 0xFF)) {
            i++;
        }
        if (hexLen == 0) {
            return new SyntaxError(s.lineIndex, null, "missing hex pass-phrase");
        }
        if (hexLen % 2 != 0) {
            return new SyntaxError(s.lineIndex, null, "odd number of hex digits");
        }
        if (i != s.to) {
            return new SyntaxError(s.lineIndex, null, "text after the hex pass-phrase");
        }
        byte[] pass = new byte[hexLen / 2];
        for (int k = 0; k < pass.length; k++) {
            int hi = Character.digit(content[hexFrom + 2 * k] & 0xFF, 16);
            int lo = Character.digit(content[hexFrom + 2 * k + 1] & 0xFF, 16);
            if (hi < 0 || lo < 0) {
                return new SyntaxError(s.lineIndex, "Invalid key: not hex?", "not hex");
            }
            pass[k] = (byte) (hi << 4 | lo);
        }
        String identity = new String(content, s.from, idLen, StandardCharsets.UTF_8);
        return new Found(identity, pass);
    }

    /**
     * Walks the significant lines: skips blank and comment lines, reports the 0-based index of each
     * line and whether it starts with white space.
     */
    private static final class LineScanner {
        private final byte[] b;
        private int pos;
        private int nextIndex;
        int lineIndex;
        int from;
        int to;
        boolean leadingSpace;

        LineScanner(byte[] b) {
            this.b = b;
        }

        boolean next() {
            while (pos < b.length) {
                int lineStart = pos;
                int end = lineStart;
                while (end < b.length && b[end] != '\n') {
                    end++;
                }
                lineIndex = nextIndex;
                nextIndex++;
                pos = end + 1;
                int i = lineStart;
                while (i < end && CNumbers.isSpace(b[i] & 0xFF)) {
                    i++;
                }
                if (i == end || b[i] == '#') {
                    continue;
                }
                leadingSpace = i != lineStart;
                from = i;
                to = end;
                return true;
            }
            return false;
        }
    }
}
