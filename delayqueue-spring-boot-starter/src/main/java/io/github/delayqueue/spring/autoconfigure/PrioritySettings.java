package io.github.delayqueue.spring.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.ConsumerSettings;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Queue;

import org.jspecify.annotations.Nullable;

/**
 * Checks the priority settings ({@code delayqueue.queues.<code>.default-priority}, {@code priority-aging} and
 * {@code strict-priority} there and under {@code delayqueue.consumer}) at startup, for every key that sets them,
 * whether or not this application consumes the queue: a bad value fails startup with a message naming the property,
 * never a send or a consumer later.
 */
final class PrioritySettings {

    private PrioritySettings() {
    }

    /**
     * The queue's default priority, or null when it sets none.
     *
     * @throws DelayQueueConfigurationException for a priority outside 0 to 9
     */
    static @Nullable Integer defaultPriority(String key, Queue queue) {
        Integer priority = queue.getDefaultPriority();
        if (priority != null && (priority < SendOptions.MIN_PRIORITY || priority > SendOptions.MAX_PRIORITY)) {
            String property = prefix(key) + ".default-priority";
            throw new DelayQueueConfigurationException(property + " is " + priority + ": a priority is from "
                    + SendOptions.MIN_PRIORITY + " (lowest) to " + SendOptions.MAX_PRIORITY + " (highest).",
                    "Set " + property + " between " + SendOptions.MIN_PRIORITY + " and " + SendOptions.MAX_PRIORITY
                            + ", or remove it for the default, " + SendOptions.DEFAULT_PRIORITY + ".");
        }
        return priority;
    }

    /**
     * Checks the {@code priority-aging} of one level ({@code delayqueue.consumer} or a queue's entry).
     *
     * @param prefix the level's property prefix, such as {@code delayqueue.consumer}
     * @throws DelayQueueConfigurationException for an aging outside 1 ms to 1 day
     */
    static void checkAging(String prefix, ConsumerSettings settings) {
        Duration aging = settings.getPriorityAging();
        if (aging != null && (aging.toMillis() < 1 || aging.compareTo(ConsumerOptions.MAX_PRIORITY_AGING) > 0)) {
            String property = prefix + ".priority-aging";
            throw new DelayQueueConfigurationException(property + " is " + aging + ": it must be from 1ms to 1d (how "
                    + "long a priority counts for, per level).", "Set " + property + " between 1ms and 1d, or remove "
                            + "it for the default, 1m (or strict-priority: true for no aging at all).");
        }
    }

    /** The property prefix of a key of {@code delayqueue.queues}: brackets for a key with dots. */
    static String prefix(String key) {
        return "delayqueue.queues" + (key.contains(".") ? "[" + key + "]" : "." + key);
    }
}
