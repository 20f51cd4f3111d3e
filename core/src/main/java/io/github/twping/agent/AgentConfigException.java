package io.github.twping.agent;

import io.github.twping.config.ControlCharacters;

/**
 * A configuration file that cannot be used. The message is the one line printed for it:
 * {@code FILE:LINE: FIELD: what is wrong}, its control characters made visible (a YAML key may hold line breaks).
 */
public final class AgentConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int line;
    private final String field;

    public AgentConfigException(String file, int line, String field, String problem) {
        super(ControlCharacters.escape(file + ":" + line + ": " + (field == null || field.isEmpty() ? "" : field + ": ")
                + problem));
        this.line = line;
        this.field = field;
    }

    /** @return the 1-based line the problem is on. */
    public int line() {
        return line;
    }

    /** @return the field path ({@code targets[2].rate}), or empty for the whole file. */
    public String field() {
        return field;
    }
}
