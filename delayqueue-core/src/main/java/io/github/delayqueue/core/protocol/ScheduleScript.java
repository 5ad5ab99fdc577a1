package io.github.delayqueue.core.protocol;

import java.util.List;

/**
 * Runs schedule.lua, the script of recurring schedules ({@code io.github.delayqueue.core.schedule}), which owns a
 * schedule's cursor and its tick messages; its KEYS and ops are described in the script's header.
 */
public final class ScheduleScript {

    private ScheduleScript() {
    }

    /** Runs schedule.lua on {@code keys} (the ten of a queue partition, then the schedule keys); returns its list. */
    public static List<Object> run(Scripts scripts, List<Object> keys, Object... args) {
        return scripts.list(Scripts.Name.SCHEDULE, keys, args);
    }
}
