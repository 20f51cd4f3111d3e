package io.github.twping.agent;

import io.github.twping.metrics.AgentMetrics;
import io.github.twping.session.SharedSender;
import io.github.twping.time.WallClock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The continuous measurement agent: one runner per configured target, all in this process ({@link TwampTargetRunner}
 * for TWAMP, {@link StampTargetRunner} for STAMP and TWAMP-Light; a reload that changes a target's protocol
 * replaces its runner once the running session ended).
 * {@link #reload} applies a new target list without dropping running sessions (changed targets switch at their
 * next session boundary, removed ones end after their running session, new ones start at once);
 * {@link #stop} ends every session with Stop-Sessions and records the partial results.
 */
public final class Agent implements AutoCloseable {
    private final AgentMetrics metrics;
    private final Consumer<String> log;
    private final WallClock clock;
    private final Map<String, Runner> runners = new LinkedHashMap<>();
    /** Sends the packets of every target's sessions from one platform thread, started with the first session. */
    private final SharedSender sender;
    private AgentConfig config;
    private AgentJsonStream stream;

    /**
     * @param config  the validated configuration
     * @param metrics where results go
     * @param log     one line per event (failures, reloads)
     * @param clock   the wall clock of the test packets
     */
    public Agent(AgentConfig config, AgentMetrics metrics, Consumer<String> log, WallClock clock) {
        this.config = config;
        this.metrics = metrics;
        this.log = log;
        this.clock = clock;
        this.sender = new SharedSender("twping-agent-sender", log);
    }

    /** Writes one {@code --json-stream} line per finished session (set before {@link #start}). */
    synchronized Agent jsonStream(AgentJsonStream s) {
        this.stream = s;
        return this;
    }

    /** Starts every target. */
    public synchronized void start() {
        for (TargetConfig t : config.targets()) {
            startRunner(t);
        }
        metrics.targets(runners.size());
    }

    private void startRunner(TargetConfig t) {
        Runner r = t.protocol().controlled() ? new TwampTargetRunner(t, config, metrics, stream, log, clock, sender)
                : new StampTargetRunner(t, config, metrics, stream, log, clock, sender);
        runners.put(t.name(), r);
        r.start();
    }

    /** Retires {@code r} and, once it ended, starts {@code next} under the same name (a changed protocol). */
    private void replaceRunner(Runner r, TargetConfig next) {
        r.retire();
        Thread.ofVirtual().name("agent-replace-" + next.name()).start(() -> {
            try {
                r.await(TimeUnit.DAYS.toNanos(1));
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
                return;
            }
            synchronized (Agent.this) {
                if (runners.get(next.name()) == r) {
                    metrics.removeTarget(next.name());
                    startRunner(next);
                }
            }
        });
    }

    /**
     * Applies a new configuration.
     *
     * @return a one-line summary of what changed
     */
    public synchronized String reload(AgentConfig next) {
        int added = 0;
        int changed = 0;
        int removed = 0;
        Map<String, TargetConfig> wanted = new LinkedHashMap<>();
        for (TargetConfig t : next.targets()) {
            wanted.put(t.name(), t);
        }
        for (var it = runners.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!wanted.containsKey(e.getKey())) {
                Runner r = e.getValue();
                r.retire();
                it.remove();
                removed++;
                String name = e.getKey();
                Thread.ofVirtual().name("agent-retire-" + name).start(() -> {
                    try {
                        r.await(TimeUnit.DAYS.toNanos(1));
                    } catch (InterruptedException ignored) {
                        Thread.currentThread().interrupt();
                    }
                    synchronized (Agent.this) {
                        if (!runners.containsKey(name)) {
                            metrics.removeTarget(name);
                        }
                    }
                });
            }
        }
        config = next;
        for (TargetConfig t : next.targets()) {
            Runner r = runners.get(t.name());
            if (r == null) {
                startRunner(t);
                added++;
            } else if (r.config().protocol() != t.protocol()) {
                replaceRunner(r, t);
                changed++;
            } else if (!r.config().sameSettings(t)) {
                r.update(t);
                changed++;
            }
        }
        metrics.targets(runners.size());
        return runners.size() + " targets (" + added + " added, " + changed + " changed, " + removed + " removed)";
    }

    /** @return the thread that sends every session's packets */
    SharedSender sender() {
        return sender;
    }

    /** @return the names of the running targets, in configuration order. */
    public synchronized List<String> targets() {
        return List.copyOf(runners.keySet());
    }

    /** @return sessions completed by a target so far, or -1 for an unknown target. */
    public synchronized long sessionsDone(String target) {
        Runner r = runners.get(target);
        return r == null ? -1 : r.sessionsDone();
    }

    /**
     * Stops every target: running sessions are cancelled, Stop-Sessions sent and partial results recorded.
     *
     * @return true when every runner ended within the timeout
     */
    public boolean stop(long timeoutNs) {
        List<Runner> all;
        synchronized (this) {
            all = List.copyOf(runners.values());
        }
        for (Runner r : all) {
            r.stopNow();
        }
        long deadline = System.nanoTime() + timeoutNs;
        boolean ok = true;
        for (Runner r : all) {
            try {
                ok &= r.await(Math.max(0, deadline - System.nanoTime()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        if (ok && sender.sessions() == 0) {
            sender.close(); // its thread ends: every session has left it
        }
        return ok;
    }

    @Override
    public void close() {
        stop(TimeUnit.SECONDS.toNanos(30));
    }
}
