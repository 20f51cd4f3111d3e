package io.github.twping.jmh.compare;

import java.io.Serial;

/** Signals that a file is not a readable JMH JSON result; the message is one line for the user. */
public final class MalformedResultException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /** @param message one line naming the file and what is wrong with it. */
    public MalformedResultException(String message) {
        super(message);
    }
}
