package io.github.twping.agent;

/**
 * The measurement protocol of a target. Each value names how a target's sessions are set up; the agent's
 * supervisor asks {@link #controlled()} whether back-to-back sessions share a control connection.
 *
 * <p>Only TWAMP (RFC 5357) exists today. STAMP (RFC 8762) and TWAMP-Light (RFC 5357 Appendix I) have no
 * control connection: when they land they become values here with {@code controlled() == false}, a runner
 * of their own, and a new entry in the schema's {@code protocol} enum (docs/agent-config.schema.json).
 */
public enum Protocol {
    /** Full TWAMP: TWAMP-Control over TCP, several Request-TW-Session on one connection. */
    TWAMP("twamp", true);

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
