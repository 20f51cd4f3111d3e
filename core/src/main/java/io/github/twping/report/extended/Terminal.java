package io.github.twping.report.extended;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a file descriptor of this process is a terminal (Linux: where {@code /proc/self/fd/N} points). */
final class Terminal {
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
}
