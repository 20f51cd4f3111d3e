package io.github.twping.ffm;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CPU lists, affinity, the current CPU and the timer slack of the calling thread. */
class ThreadTuningTest {

    @Test
    void shouldParseAndFormatCpuLists() {
        BitSet s = ThreadTuning.parseCpuList("0,2-4,7");
        assertEquals("0,2-4,7", ThreadTuning.format(s));
        assertEquals(5, s.cardinality());
        assertEquals("1", ThreadTuning.format(ThreadTuning.parseCpuList("1")));
        assertEquals("1-2", ThreadTuning.format(ThreadTuning.parseCpuList("2,1")));
        for (String bad : new String[] {"", "a", "1-", "-1", "3-1", "1,,2", "1024", "0x1"}) {
            assertThrows(IllegalArgumentException.class, () -> ThreadTuning.parseCpuList(bad), bad);
        }
    }

    /** Runs {@code body} on a fresh thread so that the test JVM's own threads keep their settings. */
    private static void onNewThread(ThrowingRunnable body) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join(60_000);
        if (t.isAlive()) {
            t.interrupt();
            throw new AssertionError("the test body did not end within 60 s");
        }
        if (failure.get() instanceof Exception e) {
            throw e;
        }
        if (failure.get() instanceof Error e) {
            throw e;
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void shouldPinTheCallingThreadToOneAllowedCpu() throws Exception {
        onNewThread(() -> {
            BitSet allowed = ThreadTuning.allowedCpus();
            assertTrue(allowed.cardinality() >= 1);
            int last = allowed.length() - 1;
            BitSet one = new BitSet();
            one.set(last);
            ThreadTuning.pinCurrentThread(one);
            assertEquals(one, ThreadTuning.allowedCpus());
            assertEquals(last, ThreadTuning.currentCpu());
            ThreadTuning.pinCurrentThread(allowed);
            assertEquals(allowed, ThreadTuning.allowedCpus());
        });
    }

    @Test
    void shouldRefuseCpusThatDoNotExist() throws Exception {
        onNewThread(() -> {
            BitSet none = new BitSet();
            none.set(1023);
            SocketException e = assertThrows(SocketException.class, () -> ThreadTuning.pinCurrentThread(none));
            assertEquals("EINVAL", e.errnoName());
            assertThrows(IllegalArgumentException.class, () -> ThreadTuning.pinCurrentThread(new BitSet()));
        });
    }

    @Test
    void shouldSetAndReadTheTimerSlack() throws Exception {
        onNewThread(() -> {
            ThreadTuning.timerSlackNs(1_000);
            assertEquals(1_000, ThreadTuning.timerSlackNs());
            ThreadTuning.timerSlackNs(1);
            assertEquals(1, ThreadTuning.timerSlackNs());
            assertThrows(IllegalArgumentException.class, () -> ThreadTuning.timerSlackNs(-1));
        });
    }

    @Test
    void shouldSetTheSliceAndKeepThePolicyAndNice() throws Exception {
        onNewThread(() -> {
            assertThrows(IllegalArgumentException.class, () -> ThreadTuning.sliceNs(-1));
            long niceBefore = niceOfThisThread();
            ThreadTuning.sliceNs(ThreadTuning.MIN_SLICE_NS);
            assertEquals(ThreadTuning.SCHED_OTHER, ThreadTuning.schedulingPolicy());
            assertEquals(niceBefore, niceOfThisThread());
            long read = ThreadTuning.sliceNs();
            // Linux 6.12 and later keep the slice; older kernels accept the call and ignore it (read 0)
            assertTrue(read == ThreadTuning.MIN_SLICE_NS || read == 0, "slice read back: " + read);
            if (read != 0) {
                assertEquals(String.valueOf(ThreadTuning.MIN_SLICE_NS), procSchedField("se.slice"));
                ThreadTuning.sliceNs(300_000);
                assertEquals(300_000, ThreadTuning.sliceNs());
                ThreadTuning.sliceNs(0);
                long byDefault = ThreadTuning.sliceNs();   // the kernel's base slice, scaled by the CPU count
                assertTrue(byDefault > 0 && byDefault != 300_000, "default slice: " + byDefault);
            }
        });
    }

    @Test
    void shouldFindAThreadByNameAndSetItsSlice() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        Thread other = Thread.ofPlatform().name("twping-slice-target").start(() -> {
            running.countDown();   // the JVM gives the kernel the thread's name before it runs this
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertTrue(running.await(60, java.util.concurrent.TimeUnit.SECONDS), "the thread did not start");
            // the kernel keeps 15 characters of a thread's name
            int[] ids = ThreadTuning.threadIdsNamed("nobody-has-this", "twping-slice-ta");
            assertEquals(1, ids.length, java.util.Arrays.toString(ids));
            assertEquals(0, ThreadTuning.threadIdsNamed("nobody-has-this").length);
            long before = ThreadTuning.threadSliceNs(ids[0]);
            ThreadTuning.threadSliceNs(ids[0], ThreadTuning.MIN_SLICE_NS);
            long read = ThreadTuning.threadSliceNs(ids[0]);
            // Linux 6.12 and later keep the slice; older kernels accept the call and ignore it (read 0)
            assertTrue(read == ThreadTuning.MIN_SLICE_NS || read == 0 && before == 0, "slice read back: " + read);
            // not the calling thread's: that one keeps its own
            assertEquals(before, ThreadTuning.sliceNs());
            SocketException gone = assertThrows(SocketException.class,
                    () -> ThreadTuning.threadSliceNs(0x3fff_fff0, ThreadTuning.MIN_SLICE_NS));
            assertEquals(3, gone.errno(), "ESRCH");
        } finally {
            release.countDown();
            other.join(60_000);
        }
    }

    /** The calling thread's nice value, field 19 of /proc/thread-self/stat. */
    private static long niceOfThisThread() throws java.io.IOException {
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[16]);   // field 19 counted from pid (1), comm (2): index 19 - 3
    }

    /** A field of /proc/thread-self/sched, e.g. se.slice. */
    private static String procSchedField(String name) throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/thread-self/sched"))) {
            String[] kv = line.split(":", 2);
            if (kv.length == 2 && kv[0].trim().equals(name)) {
                return kv[1].trim();
            }
        }
        throw new AssertionError(name + " not in /proc/thread-self/sched");
    }

    @Test
    void shouldRunTheCallingThreadUnderSchedFifoWhenPermitted() throws Exception {
        String refused = ThreadTuning.fifoRefusal(2);
        onNewThread(() -> {
            assertEquals(ThreadTuning.SCHED_OTHER, ThreadTuning.schedulingPolicy());
            assertThrows(IllegalArgumentException.class, () -> ThreadTuning.fifoPriority(0));
            assertThrows(IllegalArgumentException.class, () -> ThreadTuning.fifoPriority(100));
            if (refused == null) {
                ThreadTuning.fifoPriority(2);
                assertEquals(ThreadTuning.SCHED_FIFO, ThreadTuning.schedulingPolicy());
            } else {
                // not permitted here: the refusal names the call and the errno, and the thread is unchanged
                assertTrue(refused.contains("sched_setscheduler SCHED_FIFO 2"), refused);
                SocketException e = assertThrows(SocketException.class, () -> ThreadTuning.fifoPriority(2));
                assertEquals("EPERM", e.errnoName());
                assertEquals(ThreadTuning.SCHED_OTHER, ThreadTuning.schedulingPolicy());
            }
        });
        assertEquals(ThreadTuning.SCHED_OTHER, ThreadTuning.schedulingPolicy(), "the probe leaves the caller as it was");
        assertEquals("SCHED_FIFO priority must be 1..99: 0", ThreadTuning.fifoRefusal(0));
    }
}
