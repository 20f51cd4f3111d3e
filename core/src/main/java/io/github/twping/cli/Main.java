package io.github.twping.cli;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import sun.misc.Signal;

/**
 * The {@code twping} command: {@link Twping} plus process concerns (exit status, signals).
 *
 * <p>SIGINT, SIGTERM and SIGHUP stop a running test gracefully (partial results, exit 0) as in C; a second
 * signal exits at once with status 2.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        String argv0 = System.getProperty("twping.argv0", "twping");
        if (io.github.twping.agent.AgentCommand.wanted(args)) {
            io.github.twping.agent.AgentCommand.main(Messages.programName(argv0), args); // docs/FLEET.md
            return;
        }
        Twping twping = Twping.create(Arrays.asList(args), argv0, System.out, System.err, System.in, System.getenv());
        AtomicInteger signals = new AtomicInteger();
        for (String name : new String[] {"INT", "TERM", "HUP"}) {
            try {
                Signal.handle(new Signal(name), s -> {
                    if (signals.incrementAndGet() > 1) {
                        Runtime.getRuntime().halt(2);
                    }
                    twping.cancel();
                });
            } catch (IllegalArgumentException ignored) {
                // signal not available on this platform
            }
        }
        int status = twping.run();
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }
}
