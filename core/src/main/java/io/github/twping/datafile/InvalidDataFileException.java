package io.github.twping.datafile;

import java.io.IOException;
import java.util.List;

/** A session data file that cannot be read; carries the C diagnostic lines (without program prefix). */
public final class InvalidDataFileException extends IOException {
    private final List<String> diagnostics;

    public InvalidDataFileException(List<String> diagnostics) {
        super(String.join("; ", diagnostics));
        this.diagnostics = List.copyOf(diagnostics);
    }

    /** The lines the C library prints for this failure, in order. */
    public List<String> diagnostics() {
        return diagnostics;
    }
}
