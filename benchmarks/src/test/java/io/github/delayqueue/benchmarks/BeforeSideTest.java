package io.github.delayqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.core.DelayQueueClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

/**
 * The before side ({@code --before-jar}) on the current engine's own classes (an A/A run: the loader and the
 * reporting are what is tested, not an older engine, which this build does not have).
 */
class BeforeSideTest {

    /** Where this build's delayqueue-core classes are: a jar, or delayqueue-core/target/classes in the reactor. */
    private static Path currentEngine() throws Exception {
        return Path.of(DelayQueueClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void theLoaderTakesTheEngineAndTheBenchmarkFromItsOwnSourcesAndTheRestFromTheParent() throws Exception {
        Path engine = currentEngine();
        try (BeforeSide.Loader loader = new BeforeSide.Loader(engine)) {
            Class<?> client = Class.forName(DelayQueueClient.class.getName(), false, loader);
            assertNotSame(DelayQueueClient.class, client);
            assertSame(loader, client.getClassLoader());
            assertSame(loader, Class.forName(OursSide.class.getName(), false, loader).getClassLoader());
            // Redisson (and what the engine shares with ours) is the parent's: one class in both
            assertSame(RedissonClient.class, Class.forName(RedissonClient.class.getName(), false, loader));
            // the scripts from the before jar, never the parent's
            URL claim = loader.getResource("io/github/delayqueue/core/protocol/lua/claim.lua");
            assertTrue(claim != null && claim.toString().contains(engine.toUri().getPath()), String.valueOf(claim));
            // another io.github.delayqueue class is missing rather than the parent's (built on the current engine)
            assertThrows(ClassNotFoundException.class,
                    () -> Class.forName("io.github.delayqueue.spring.DelayMessageHandler", false, loader));
        }
    }

    @Test
    @Timeout(300)
    void theBeforeSideRunsItsScenariosAndIsReportedBesideOurs() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<String> scenarios = List.of("enqueue-rate-1", "enqueue-batch-rate", "redis-bytes-per-message");
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            Benchmarks.run(out, "--redis-url=embedded", "--warmup=false", "--rounds=1", "--sides=ours,floor",
                    "--scenarios=" + String.join(",", scenarios), "--enqueue-count=300", "--batch-count=2000",
                    "--send-batch=200", "--threads=2", "--memory-count=500", "--before-jar=" + currentEngine());
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(output.contains("\n# before (--before-jar, issue 43 part 4): engine classes from "), output);
        for (String scenario : scenarios) {
            Matcher before = Pattern.compile("\nDETAIL scenario=" + Pattern.quote(scenario) + " rounds=before:(\\S+)")
                    .matcher(output);
            assertTrue(before.find(), scenario + "\n" + output);
            double value = Double.parseDouble(before.group(1));
            assertTrue(value > 0, scenario + "\n" + output);
            assertTrue(output.contains("\nDETAIL scenario=" + scenario + " side=before "), scenario + "\n" + output);
            assertTrue(output.contains("\nDETAIL scenario=" + scenario + " before="), scenario + "\n" + output);
        }
        assertTrue(Pattern.compile("\nDETAIL scenario=enqueue-rate-1 floor=cpu_per_msg .* before_redis_us=\\S+ .*"
                + "ours_redis_vs_before=\\S+ ours_jvm_vs_before=\\S+").matcher(output).find(), output);
        assertTrue(output.contains("\n| issue 43 part 4 target | after (ours) | before | after / before | met? (after) |"),
                output);
        String table = output.substring(output.indexOf("\n| issue 43 part 4 target"));
        assertEquals(13, table.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| issue 43")
                && !l.startsWith("| ---")).count(), output);
    }
}
