package io.github.twping.server;

/**
 * A configuration problem (file, line or command-line value) reported to the operator as one line.
 * The message is complete and printable as is; twampd prints it and exits with status 1.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message the full one-line message, e.g. {@code twamp-server.conf:3: Unknown key=foo} */
    public ConfigException(String message) {
        super(message);
    }

    /** Builds the standard {@code <file>:<line>: <problem>} message. */
    public static ConfigException at(String file, int line, String problem) {
        return new ConfigException(file + ":" + line + ": " + problem);
    }
}
