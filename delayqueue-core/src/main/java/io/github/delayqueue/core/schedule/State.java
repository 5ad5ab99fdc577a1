package io.github.delayqueue.core.schedule;

import org.jspecify.annotations.Nullable;

/** A schedule's state as schedule.lua keeps it: {@code "<version>|<cursor>|<tick id>|<paused>|<running>"}. */
record State(String version, long cursor, String tickId, boolean paused, String running) {

    static @Nullable State parse(String text) {
        if (text.isEmpty()) {
            return null;
        }
        String[] parts = text.split("\\|", 5);
        return new State(parts[0], Long.parseLong(parts[1]), parts[2], parts[3].equals("1"), parts[4]);
    }
}
