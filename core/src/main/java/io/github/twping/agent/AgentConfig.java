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
 */
public record AgentConfig(Path file, List<TargetConfig> targets, double backoffInitialSeconds,
                          double backoffMaxSeconds, double connectTimeoutSeconds) {
    public AgentConfig {
        targets = List.copyOf(targets);
    }
}
