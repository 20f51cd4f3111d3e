package io.github.twping.agent;

import java.net.InetSocketAddress;

/**
 * What {@code twping --agent} was asked to do (docs/FLEET.md), parsed by {@code cli.AgentArgs}.
 *
 * @param configFile      the YAML target list ({@code --agent FILE})
 * @param metricsListen   {@code --metrics-listen} as typed, or null
 * @param metricsAddress  its parsed address, or null
 * @param jsonStream      {@code --json-stream} target ({@code -} = stdout), or null
 * @param intervalSeconds {@code --interval} (0, or 0.01..86400), or -1 when not given
 * @param check           {@code --check}: validate the file and exit
 */
public record AgentOptions(String configFile, String metricsListen, InetSocketAddress metricsAddress,
                           String jsonStream, double intervalSeconds, boolean check) {
}
