package io.github.twping.report.extended;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.github.twping.ffm.TerminalSize;

/** Whether a file descriptor of this process is a terminal (Linux: where {@code /proc/self/fd/N} points), and its width. */
final class Terminal {
    /** Columns assumed when neither the terminal nor {@code $COLUMNS} tells (the classic terminal). */
    static final int DEFAULT_COLUMNS = 80;

    private Terminal() {
    }

    static boolean isTerminal(int fd) {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /**
     * @return the width of the terminal on {@code fd} ({@code ioctl(TIOCGWINSZ)}, read at each call so that a
     *         resized window is followed), else {@code $COLUMNS} when it is a positive number, else
     *         {@link #DEFAULT_COLUMNS}
     */
    static int columns(int fd, Map<String, String> environment) {
        int columns = TerminalSize.columns(fd);
        if (columns > 0) {
            return columns;
        }
        String text = environment.get("COLUMNS");
        if (text != null && text.matches("[1-9][0-9]{0,4}")) {
            return Integer.parseInt(text);
        }
        return DEFAULT_COLUMNS;
    }
}
