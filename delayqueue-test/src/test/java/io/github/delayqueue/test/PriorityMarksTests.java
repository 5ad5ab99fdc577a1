package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * {@link DelayQueueTester#reset()} deletes the priorities' markers from each queue's delayed set, and finds each
 * marker's set, by its own copy of their shapes: the copy must stay the scripts' (delayqueue-core's includes/format.lua
 * and includes/priorities.lua), or a reset would leave markers behind. Read from the script resources on the class
 * path, as the scripts are loaded.
 */
class PriorityMarksTests {

    private static final String LUA = "io/github/delayqueue/core/protocol/lua/includes/";

    @Test
    void theTestersCopyOfThePriorityMarkerIsTheScripts() throws IOException {
        Matcher prioritized = Pattern.compile("(?m)^local PRIORITIZED = (\\d+)").matcher(read("format.lua"));
        assertThat(prioritized.find()).as("PRIORITIZED in format.lua").isTrue();
        assertThat((char) Integer.parseInt(prioritized.group(1))).isEqualTo(DelayQueueTester.PRIORITY_MARK);
        assertThat(DelayQueueTester.FORGET_PRIORITY_MARKS).contains("'" + DelayQueueTester.PRIORITY_MARK + "'");

        String priorities = read("priorities.lua");
        assertThat(priorities).as("a priority's set, after the queue's key base")
                .contains("keys.base .. '" + DelayQueueTester.PRIORITY_SET + "' .. string.sub(member, 2, 2)");
        assertThat(priorities).as("a marker: two bytes, scored -inf in delayed")
                .contains("#member == 2 and string.byte(member, 1) == PRIORITIZED")
                .contains("redis.call('ZADD', keys.delayed, '-inf', string.sub(member, 1, 2))");
    }

    private String read(String name) throws IOException {
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(LUA + name)) {
            assertThat(in).as(LUA + name + " on the class path").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
