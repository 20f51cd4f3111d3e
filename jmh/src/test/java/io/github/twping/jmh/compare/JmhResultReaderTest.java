package io.github.twping.jmh.compare;

import static io.github.twping.jmh.compare.CompareFixtures.fixture;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

class JmhResultReaderTest {

    @Test
    void shouldReadScoreErrorIntervalParamsAndAllocation() throws MalformedResultException {
        List<BenchmarkResult> results = JmhResultReader.read(fixture("baseline.json"));
        assertEquals(4, results.size());
        BenchmarkResult first = results.get(0);
        assertEquals(new BenchmarkKey("io.github.twping.jmh.sample.CodecBenchmark.encode", "avgt",
                new TreeMap<>(Map.of("mode", "open"))), first.key());
        assertEquals(100.0, first.score());
        assertEquals(2.0, first.scoreError());
        assertEquals(98.0, first.confidenceLow());
        assertEquals(102.0, first.confidenceHigh());
        assertEquals("ns/op", first.unit());
        assertEquals(0.001, first.allocNormBytes());
        assertFalse(results.get(3).hasAlloc());
        assertTrue(results.get(2).key().params().isEmpty());
    }

    @Test
    void shouldAcceptTheNanStringsOfASingleIteration() throws MalformedResultException {
        BenchmarkResult result = JmhResultReader.read(fixture("single-iteration.json")).get(0);
        assertFalse(result.hasError());
        assertEquals(100.0, result.confidenceLow());
        assertEquals(100.0, result.confidenceHigh());
    }

    @Test
    void shouldFindTheAllocationMetricOfRealJmhOutput() throws MalformedResultException {
        List<BenchmarkResult> results = JmhResultReader.read(fixture("jmh-1.37-smoke.json"));
        assertEquals(2, results.size());
        for (BenchmarkResult result : results) {
            assertTrue(result.hasAlloc(), result.key().toString());
            assertFalse(result.hasError(), result.key().toString());
        }
        assertEquals("us/op", results.get(0).unit());
        assertEquals("ns/op", results.get(1).unit());
    }

    @Test
    void shouldRejectDuplicateResults() {
        String entry = "{\"benchmark\":\"a.B.c\",\"mode\":\"avgt\",\"primaryMetric\":{\"score\":1,\"scoreUnit\":\"ns/op\"}}";
        MalformedResultException e = assertThrows(MalformedResultException.class,
                () -> JmhResultReader.parse("x.json", new StringReader("[" + entry + "," + entry + "]")));
        assertEquals("x.json: entry 1: duplicate result for a.B.c [avgt]", e.getMessage());
    }

    @Test
    void shouldRejectAnUnknownMode() {
        String entry = "{\"benchmark\":\"a.B.c\",\"mode\":\"fast\",\"primaryMetric\":{\"score\":1,\"scoreUnit\":\"ns/op\"}}";
        MalformedResultException e = assertThrows(MalformedResultException.class,
                () -> JmhResultReader.parse("x.json", new StringReader("[" + entry + "]")));
        assertTrue(e.getMessage().startsWith("x.json: entry 0 (a.B.c): unknown mode \"fast\""), e.getMessage());
    }

    @Test
    void shouldRejectAScoreThatIsNotANumber() {
        String entry = "{\"benchmark\":\"a.B.c\",\"mode\":\"avgt\",\"primaryMetric\":{\"score\":\"fast\",\"scoreUnit\":\"ns/op\"}}";
        MalformedResultException e = assertThrows(MalformedResultException.class,
                () -> JmhResultReader.parse("x.json", new StringReader("[" + entry + "]")));
        assertEquals("x.json: entry 0 (a.B.c): primaryMetric.score is not a number", e.getMessage());
    }

    @Test
    void shouldRejectEmptyInput() {
        MalformedResultException e = assertThrows(MalformedResultException.class,
                () -> JmhResultReader.parse("x.json", new StringReader("")));
        assertTrue(e.getMessage().startsWith("x.json: "), e.getMessage());
    }
}
