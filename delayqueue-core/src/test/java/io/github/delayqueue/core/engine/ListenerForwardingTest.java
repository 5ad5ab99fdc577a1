package io.github.delayqueue.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.DelayQueueListener;

/**
 * The engine's listeners that stand between it and the application's ({@link SafeListener}, {@link ActivityTally})
 * forward every event: a method they do not override falls to the interface's no-op default, and the application's
 * listener (the starter's meters) never hears it. The history's trims were lost that way once.
 */
class ListenerForwardingTest {

    @Test
    void everyListenerEventIsForwarded() {
        for (Class<?> wrapper : List.of(SafeListener.class, ActivityTally.class)) {
            List<String> missing = new ArrayList<>();
            for (Method event : DelayQueueListener.class.getDeclaredMethods()) {
                if (Modifier.isStatic(event.getModifiers()) || !event.isDefault()) {
                    continue;
                }
                try {
                    wrapper.getDeclaredMethod(event.getName(), event.getParameterTypes());
                } catch (NoSuchMethodException e) {
                    missing.add(event.getName());
                }
            }
            assertThat(missing).as("events %s does not forward", wrapper.getSimpleName()).isEmpty();
        }
    }
}
