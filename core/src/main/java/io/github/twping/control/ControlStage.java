package io.github.twping.control;

/** The phase of a twping run a control failure belongs to; it decides the final stderr line (docs/CLI.md, exit statuses). */
public enum ControlStage {
    /** Connecting and set-up (greeting to Server-Start): "Unable to open control connection to &lt;serv&gt;.". */
    OPEN_CONNECTION,
    /** Request-TW-Session, Start-Sessions, Stop-Sessions: "Session Failed!". */
    SESSION;

    /**
     * @param serverAsTyped the server argument exactly as the user typed it
     * @return the last line twping prints for a failure in this stage (without the program prefix)
     */
    public String finalLine(String serverAsTyped) {
        return switch (this) {
            case OPEN_CONNECTION -> "Unable to open control connection to " + serverAsTyped + ".";
            case SESSION -> "Session Failed!";
        };
    }
}
