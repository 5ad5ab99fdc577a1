package io.github.delayqueue.spring.autoconfigure;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.ConsumerSettings;
import io.github.delayqueue.spring.autoconfigure.DelayQueueProperties.Queue;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one settings type of both levels and its merge, and the one matcher of {@code delayqueue.queues} keys.
 */
class QueueSettingsTests {

    // ---- one settings type, first set wins --------------------------------------------------------

    @Test
    void aQueuesSettingsStartUnsetAndTheGlobalOnesAtTheDefaults() {
        assertThat(unsetSettings(new Queue())).hasSize(settingCount());
        assertThat(unsetSettings(new DelayQueueProperties().getConsumer())).isEmpty();
    }

    @Test
    void mergingTakesTheFirstSetValuePerSettingDescendingIntoGroupsThenTheDefaults() {
        Queue queue = new Queue();
        queue.setBatchSize(7);
        queue.getRetry().setJitter(0.0);
        DelayQueueProperties.Consumer global = new DelayQueueProperties.Consumer();
        global.setBatchSize(9);
        global.setConcurrency(3);
        global.getRetry().setJitter(0.5);
        global.getDeadLetter().setMaxCount(null); // unset at both levels: the default

        ConsumerSettings merged = ConsumerSettings.firstSet(queue, global);

        assertThat(unsetSettings(merged)).isEmpty();
        assertThat(merged.getBatchSize()).isEqualTo(7);
        assertThat(merged.getConcurrency()).isEqualTo(3);
        assertThat(merged.getRetry().getJitter()).isEqualTo(0.0);
        assertThat(merged.getRetry().getMaxAttempts()).isEqualTo(5);
        assertThat(merged.getDeadLetter().getMaxCount()).isEqualTo(100_000);
        assertThat(queue.getConcurrency()).as("the levels are left as they were").isNull();
    }

    // ---- one key matcher --------------------------------------------------------------------------

    @Test
    void keysMatchExactlyThenRelaxedlyButNeverThroughAnotherQueuesExactCode() {
        DelayQueueProperties properties = new DelayQueueProperties();
        properties.getQueues().put("ordertimeout", new Queue());
        properties.getQueues().put("ORDER_TIMEOUT", new Queue());
        properties.getQueues().put("orders.dotted", new Queue());
        properties.getQueues().put("nosuchqueue", new Queue());
        QueueSettings settings = new QueueSettings(properties, Set.of("ORDER_TIMEOUT", "order-timeout",
                "Orders.Dotted", "REMINDER"));

        assertThat(settings.key("ORDER_TIMEOUT")).isEqualTo("ORDER_TIMEOUT");
        assertThat(settings.key("order-timeout")).isEqualTo("ordertimeout");
        assertThat(settings.key("Orders.Dotted")).isEqualTo("orders.dotted");
        assertThat(settings.key("REMINDER")).isNull();
        assertThat(settings.unmatchedKeys()).containsExactly("nosuchqueue");
    }

    @Test
    void aKeyShadowedByAnotherMatchOfTheSameQueueIsReportedAsUnmatched() {
        DelayQueueProperties properties = new DelayQueueProperties();
        properties.getQueues().put("ORDER_TIMEOUT", new Queue());
        properties.getQueues().put("ordertimeout", new Queue());
        QueueSettings settings = new QueueSettings(properties, Set.of("ORDER_TIMEOUT"));

        assertThat(settings.key("ORDER_TIMEOUT")).isEqualTo("ORDER_TIMEOUT");
        assertThat(settings.unmatchedKeys()).containsExactly("ordertimeout");
    }

    /** Leaf settings of {@link ConsumerSettings} (nested groups descended into) that are null in {@code settings}. */
    private static List<String> unsetSettings(ConsumerSettings settings) {
        List<String> unset = new java.util.ArrayList<>();
        collect(ConsumerSettings.class, settings, "", unset, false);
        return unset;
    }

    private static int settingCount() {
        List<String> all = new java.util.ArrayList<>();
        collect(ConsumerSettings.class, new ConsumerSettings(), "", all, true);
        return all.size();
    }

    private static void collect(Class<?> type, Object target, String prefix, List<String> into, boolean all) {
        for (Field field : type.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers())) {
                continue;
            }
            field.setAccessible(true);
            try {
                Object value = field.get(target);
                if (Modifier.isFinal(field.getModifiers())) {
                    collect(field.getType(), value, prefix + field.getName() + ".", into, all);
                } else if (all || value == null) {
                    into.add(prefix + field.getName());
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
