package io.github.twping.agent;

import java.nio.file.Path;
import java.util.List;

/**
 * A validated agent configuration file.
 *
 * @param file                  where it was read from
 * @param targets               the targets in file order, names unique
 * @param backoffInitialSeconds first wait after a failure
 * @param backoffMaxSeconds     longest wait between attempts
 * @param connectTimeoutSeconds TCP connect and control read timeout
 * @param intervalSeconds       length of the {@code --json-stream} interval events within a session; 0 = none
 *                              (one line per session only)
 */
public record AgentConfig(Path file, List<TargetConfig> targets, double backoffInitialSeconds,
                          double backoffMaxSeconds, double connectTimeoutSeconds, double intervalSeconds) {
    /** Default of {@code agent.json_stream_interval}, seconds. */
    public static final double DEFAULT_INTERVAL_SECONDS = 10.0;
    /** Shortest interval (as twping's {@code --interval}). */
    public static final double MIN_INTERVAL_SECONDS = 0.01;

    public AgentConfig {
        targets = List.copyOf(targets);
    }

    /** @return this configuration with another interval (the command line's {@code --interval}). */
    public AgentConfig withInterval(double seconds) {
        return new AgentConfig(file, targets, backoffInitialSeconds, backoffMaxSeconds, connectTimeoutSeconds, seconds);
    }
}
