package io.github.twping.cli;

import io.github.twping.agent.AgentCommand;
import java.util.List;

/**
 * {@code twping --agent ...}: the fleet agent's process entry (docs/FLEET.md). SIGHUP re-reads the target
 * file, SIGTERM and SIGINT stop the agent (sessions end with Stop-Sessions, partial results recorded); the
 * handlers are installed also when the signal was ignored at start ({@code nohup}, a script's background job).
 */
final class AgentMain {
    private AgentMain() {
    }

    /** @return true when the arguments ask for the agent ({@code --agent} anywhere). */
    static boolean wanted(String[] args) {
        for (String a : args) {
            if (a.equals("--agent") || a.startsWith("--agent=")) {
                return true;
            }
        }
        return false;
    }

    /** Installs the signal handlers, runs the agent until it stops and exits with its status. */
    static void main(String program, String[] args) {
        AgentCommand command = new AgentCommand(program, System.err);
        Signals.handle(Signals.Name.HUP, command::reload);
        Signals.handle(Signals.Name.TERM, command::stop);
        Signals.handle(Signals.Name.INT, command::stop);
        int status = AgentArgs.run(command, List.of(args));
        System.err.flush();
        System.exit(status);
    }
}
