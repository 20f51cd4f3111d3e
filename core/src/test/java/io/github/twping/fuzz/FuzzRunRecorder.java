package io.github.twping.fuzz;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.TestTag;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Records, for the build's check {@link FuzzRunsCompleteTest}, which fuzz test classes a fuzz JVM started and
 * whether each ran to the end of its class (docs/TESTING.md, fuzzing): a bug detector that fires outside a fuzzed
 * input (an {@code @AfterAll} check, a thread left running) ends Jazzer's JVM without a test report, which
 * surefire alone counts as zero tests and passes.
 *
 * <p>A JUnit Platform listener (registered in {@code META-INF/services}), active only when the system property
 * {@value #DIRECTORY_PROPERTY} names a folder (core's surefire configuration: one folder per Maven invocation).
 * When the first {@code @FuzzTest} of a class (JUnit tag {@value #JAZZER_TAG}) starts it writes
 * {@code <class>.started}; when that class's container finishes, {@code <class>.finished} with the number of
 * its tests (seeds, findings and the fuzzing run) that finished and their outcome. Nothing on the fuzzed path.
 */
public final class FuzzRunRecorder implements TestExecutionListener {
    /** The system property naming the folder of this build's records. */
    public static final String DIRECTORY_PROPERTY = "twping.fuzz.runs";
    /** Jazzer's tag of every {@code @FuzzTest}. */
    static final String JAZZER_TAG = "jazzer";
    /** Suffix of a started class's record. */
    static final String STARTED = ".started";
    /** Suffix of a finished class's record. */
    static final String FINISHED = ".finished";

    private final Path directory;
    private final Map<String, int[]> finishedTests = new HashMap<>();   // class -> {finished, failed}

    /** The listener of the service loader: records when {@value #DIRECTORY_PROPERTY} is set, else does nothing. */
    public FuzzRunRecorder() {
        String d = System.getProperty(DIRECTORY_PROPERTY);
        this.directory = d == null || d.isBlank() ? null : Path.of(d);
    }

    @Override
    public synchronized void executionStarted(TestIdentifier id) {
        if (directory == null || !id.getTags().contains(TestTag.create(JAZZER_TAG))) {
            return;
        }
        String owner = methodClass(id.getSource().orElse(null));
        if (owner != null && !finishedTests.containsKey(owner)) {
            finishedTests.put(owner, new int[2]);
            write(owner + STARTED, "started\n");
        }
    }

    @Override
    public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (directory == null) {
            return;
        }
        TestSource source = id.getSource().orElse(null);
        if (id.isTest()) {
            int[] counts = finishedTests.get(methodClass(source));
            if (counts != null) {
                counts[0]++;
                counts[1] += result.getStatus() == TestExecutionResult.Status.SUCCESSFUL ? 0 : 1;
            }
        } else if (source instanceof ClassSource c && finishedTests.containsKey(c.getClassName())) {
            int[] counts = finishedTests.get(c.getClassName());
            write(c.getClassName() + FINISHED, counts[0] + " " + counts[1] + " " + result.getStatus() + "\n");
        }
    }

    private static String methodClass(TestSource source) {
        return source instanceof MethodSource m ? m.getClassName() : null;
    }

    private void write(String name, String text) {
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(name), text, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            // the check then finds the record missing and says which class
            System.err.println("FuzzRunRecorder: cannot write " + directory.resolve(name) + ": " + e.getMessage());
        }
    }
}
