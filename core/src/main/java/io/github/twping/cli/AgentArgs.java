package io.github.twping.cli;

import io.github.twping.agent.AgentCommand;
import io.github.twping.agent.AgentConfig;
import io.github.twping.agent.AgentOptions;
import io.github.twping.metrics.MetricsEndpoint;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * {@code twping --agent FILE [--metrics-listen ADDR:PORT] [--json-stream FILE|-] [--interval SECONDS] [--check]}
 * (docs/FLEET.md): argv to {@link AgentOptions}. A bad command line is one line and exit status 1.
 */
public final class AgentArgs {
    private AgentArgs() {
    }

    /** Parses {@code args} and runs {@code command} with them; a bad command line is refused in one line. */
    public static int run(AgentCommand command, List<String> args) {
        AgentOptions options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            return command.refuse(e.getMessage());
        }
        return command.execute(options);
    }

    /** @throws IllegalArgumentException with the line to print (after the program name) */
    static AgentOptions parse(List<String> args) {
        String configFile = null;
        String listen = null;
        String jsonStream = null;
        String interval = null;
        boolean check = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String value = null;
            int eq = a.indexOf('=');
            String name = a.startsWith("--") && eq > 0 ? a.substring(0, eq) : a;
            if (eq > 0 && a.startsWith("--")) {
                value = a.substring(eq + 1);
            }
            switch (name) {
                case "--agent", "--metrics-listen", "--json-stream", "--interval" -> {
                    if (value == null) {
                        if (i + 1 >= args.size()) {
                            throw new IllegalArgumentException("option '" + name + "' requires an argument");
                        }
                        value = args.get(++i);
                    }
                    switch (name) {
                        case "--agent" -> configFile = value;
                        case "--metrics-listen" -> listen = value;
                        case "--interval" -> interval = value;
                        default -> jsonStream = value;
                    }
                }
                case "--check" -> check = true;
                default -> throw new IllegalArgumentException("--agent: unsupported argument '" + a
                        + "' (the agent takes --agent FILE, --metrics-listen ADDR:PORT, --json-stream FILE|-, "
                        + "--interval SECONDS, --check)");
            }
        }
        InetSocketAddress address = listen == null ? null : MetricsEndpoint.parseListen(listen);
        double intervalSeconds = -1;
        if (interval != null) {
            intervalSeconds = parseInterval(interval);
            if (Double.isNaN(intervalSeconds)) {
                throw new IllegalArgumentException("--interval: '" + interval
                        + "' is not 0 (no interval events) or 0.01-86400 seconds");
            }
            if (jsonStream == null) {
                throw new IllegalArgumentException("--interval needs --json-stream");
            }
        }
        if (configFile == null) {
            throw new IllegalArgumentException("--agent FILE is required");
        }
        return new AgentOptions(configFile, listen, address, jsonStream, intervalSeconds, check);
    }

    /** @return seconds: 0, or 0.01..86400; NaN when {@code text} is neither */
    public static double parseInterval(String text) {
        double v;
        try {
            v = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
        if (!text.matches("[0-9]*\\.?[0-9]+(e[+-]?[0-9]+)?") || !(v == 0 || (v >= AgentConfig.MIN_INTERVAL_SECONDS
                && v <= 86400))) {
            return Double.NaN;
        }
        return v;
    }
}
