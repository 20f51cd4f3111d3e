package io.github.twping.control;

import java.io.IOException;
import java.util.List;

/**
 * A fatal TWAMP-Control failure on the client side. Carries the exact lines the C twping prints
 * for it (docs/CLI.md, exit statuses; without the {@code twping: } prefix), the stage that decides the final
 * line, and the accept code received when the failure is a refusal.
 */
public final class ControlException extends IOException {
    private static final long serialVersionUID = 1L;

    /** {@link #acceptCode()} when no accept code was involved. */
    public static final int NO_ACCEPT_CODE = -1;

    private final transient List<String> lines;
    private final ControlStage stage;
    private final int acceptCode;

    public ControlException(ControlStage stage, int acceptCode, List<String> lines) {
        super(lines.isEmpty() ? stage.finalLine("<server>") : String.join("; ", lines));
        this.stage = stage;
        this.acceptCode = acceptCode;
        this.lines = List.copyOf(lines);
    }

    public ControlException(ControlStage stage, int acceptCode, List<String> lines, Throwable cause) {
        this(stage, acceptCode, lines);
        initCause(cause);
    }

    static ControlException open(String... lines) {
        return new ControlException(ControlStage.OPEN_CONNECTION, NO_ACCEPT_CODE, List.of(lines));
    }

    static ControlException session(String... lines) {
        return new ControlException(ControlStage.SESSION, NO_ACCEPT_CODE, List.of(lines));
    }

    /** @return the diagnostic lines printed before the final line (possibly none), in order. */
    public List<String> lines() {
        return lines;
    }

    /** @return the stage, which gives the final line via {@link ControlStage#finalLine(String)}. */
    public ControlStage stage() {
        return stage;
    }

    /** @return the non-zero accept code the server sent, or {@link #NO_ACCEPT_CODE}. */
    public int acceptCode() {
        return acceptCode;
    }
}
