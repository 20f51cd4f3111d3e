package io.github.twping.agent;

/**
 * The measurement protocol of a target. Each value names how a target's sessions are set up; the agent's
 * supervisor asks {@link #controlled()} whether back-to-back sessions share a control connection.
 *
 * <p>STAMP (RFC 8762) and TWAMP-Light (RFC 5357 Appendix I) have no control connection: their targets run on
 * {@code StampTargetRunner} with the {@code stamp} package's Session-Sender; TWAMP targets on
 * {@code TwampTargetRunner}. The configuration name is also the {@code protocol} label of the agent's metrics.
 */
public enum Protocol {
    /** Full TWAMP: TWAMP-Control over TCP, several Request-TW-Session on one connection. */
    TWAMP("twamp", true),
    /** STAMP (RFC 8762): unauthenticated or authenticated test packets to a Session-Reflector, no control. */
    STAMP("stamp", false),
    /** TWAMP-Light (RFC 5357 Appendix I): the open-mode TWAMP-Test packets to a reflector, no control. */
    LIGHT("light", false);

    private final String configName;
    private final boolean controlled;

    Protocol(String configName, boolean controlled) {
        this.configName = configName;
        this.controlled = controlled;
    }

    /** @return the name used in the configuration file. */
    public String configName() {
        return configName;
    }

    /** @return true when sessions are negotiated on a control connection. */
    public boolean controlled() {
        return controlled;
    }

    /** @return the protocol for a configuration name, or null. */
    public static Protocol ofConfigName(String name) {
        for (Protocol p : values()) {
            if (p.configName.equals(name)) {
                return p;
            }
        }
        return null;
    }
}
