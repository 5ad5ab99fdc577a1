package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * {@link DelayQueueTester#reset()} deletes the groups' marker from each queue's delayed set by its own copy of the
 * marker: the copy must stay the one the scripts write (delayqueue-core's includes/format.lua), or a reset would leave
 * a marker behind whose groups it deleted. Read from the script resource on the class path, as the scripts are loaded.
 */
class GroupsMarkTests {

    private static final String GROUPS_LUA = "io/github/delayqueue/core/protocol/lua/includes/format.lua";

    @Test
    void theTestersCopyOfTheGroupsMarkerIsTheScripts() throws IOException {
        String lua;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(GROUPS_LUA)) {
            assertThat(in).as(GROUPS_LUA + " on the class path").isNotNull();
            lua = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher m = Pattern.compile("(?m)^local GROUPS_MARK = '([^']*)'").matcher(lua);
        assertThat(m.find()).as("GROUPS_MARK in " + GROUPS_LUA).isTrue();
        assertThat(DelayQueueTester.GROUPS_MARK).isEqualTo(luaString(m.group(1)));
    }

    /** A single-quoted Lua string's text: its decimal escapes (such as {@code \31}) and {@code \\} read. */
    private static String luaString(String quoted) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < quoted.length(); i++) {
            char c = quoted.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            int j = i + 1;
            while (j < quoted.length() && j < i + 4 && Character.isDigit(quoted.charAt(j))) {
                j++;
            }
            if (j > i + 1) {
                out.append((char) Integer.parseInt(quoted.substring(i + 1, j)));
                i = j - 1;
            } else if (j < quoted.length() && quoted.charAt(j) == '\\') {
                out.append('\\');
                i = j;
            } else {
                throw new IllegalArgumentException("unread escape in '" + quoted + "'");
            }
        }
        return out.toString();
    }
}
