package io.github.delayqueue.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObservedPathCostTest {

    @Test
    void argumentsAreRejectedWithHowToRunIt() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = ObservedPathCost.run(new String[] { "--rounds=3" }, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertEquals(2, status);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains("takes no arguments (it got [--rounds=3])"), message);
        assertTrue(message.contains("java -cp benchmarks/target/benchmarks.jar io.github.delayqueue.benchmarks.ObservedPathCost"), message);
    }
}
