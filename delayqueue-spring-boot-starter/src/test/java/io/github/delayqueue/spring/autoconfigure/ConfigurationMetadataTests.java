package io.github.delayqueue.spring.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metadata that the configuration processor generates into the starter's classes (and so its
 * jar) documents every property of {@link DelayQueueProperties} and {@link DelayQueueOutboxProperties}, found by
 * walking the classes.
 */
class ConfigurationMetadataTests {

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";

    @Test
    void everyPropertyIsInTheMetadataWithADescription() throws Exception {
        Map<String, String> descriptions = properties().valueStream().collect(Collectors.toMap(
                p -> p.get("name").asString(), p -> p.has("description") ? p.get("description").asString() : ""));

        Set<String> declared = new TreeSet<>();
        walk("delayqueue", DelayQueueProperties.class, declared);
        walk("delayqueue.producer.outbox", DelayQueueOutboxProperties.class, declared);
        assertThat(declared).hasSize(40).contains("delayqueue.schedules", "delayqueue.producer.observation-enabled",
                "delayqueue.consumer.observation-enabled", "delayqueue.producer.outbox.enabled", "delayqueue.warm-up-wait",
                "delayqueue.producer.outbox.namespace", "delayqueue.producer.outbox.version-retention",
                "delayqueue.producer.outbox.initialize-schema", "delayqueue.endpoint.show-payloads", "delayqueue.metrics.refresh-interval",
                "delayqueue.producer.wait-for-replicas", "delayqueue.producer.wait-for-replicas-timeout",
                "delayqueue.producer.wait-for-replicas-required").contains("delayqueue.queues", "delayqueue.consumer.retry.jitter",
                "delayqueue.consumer.retry.no-retry-for",
                "delayqueue.consumer.dead-letter.max-count", "delayqueue.metrics.refresh-interval");
        assertThat(descriptions.keySet()).filteredOn(name -> name.startsWith("delayqueue."))
                .containsExactlyInAnyOrderElementsOf(declared);
        // the health switch (additional metadata), and the endpoint's own two that the processor derives from @Endpoint
        assertThat(descriptions).containsKeys("management.health.delayqueue.enabled",
                "management.endpoint.delayqueue.access", "management.endpoint.delayqueue.cache.time-to-live")
                .hasSize(declared.size() + 3);
        assertThat(descriptions).allSatisfy((name, description) -> assertThat(description).as(name).isNotBlank());
        assertThat(descriptions.get("delayqueue.consumer.enabled")).startsWith("Whether");
        assertThat(descriptions.get("delayqueue.producer.transaction-aware")).startsWith("Whether");
        assertThat(descriptions.get("delayqueue.endpoint.show-payloads")).startsWith("Whether");
        assertThat(descriptions.get("delayqueue.producer.outbox.enabled")).startsWith("Whether");
    }

    @Test
    void defaultsAreRecorded() throws Exception {
        Map<String, String> defaults = properties().valueStream().filter(p -> p.has("defaultValue")).collect(
                Collectors.toMap(p -> p.get("name").asString(), p -> p.get("defaultValue").asString()));
        assertThat(defaults).containsEntry("delayqueue.producer.observation-enabled", "false")
                .containsEntry("delayqueue.consumer.observation-enabled", "false");
        assertThat(defaults).containsEntry("delayqueue.key-prefix", "dq")
                .containsEntry("delayqueue.consumer.visibility-timeout", "30s")
                .containsEntry("delayqueue.producer.max-payload-size", "1MB")
                .containsEntry("delayqueue.endpoint.show-payloads", "false")
                .containsEntry("delayqueue.producer.outbox.enabled", "false")
                .containsEntry("delayqueue.producer.outbox.relay-after", "10s");
    }

    /**
     * An IDE cannot complete inside a map entry's value, so the descriptions of {@code delayqueue.queues} and
     * {@code delayqueue.schedules} (shown where a user types the key) name every setting an entry takes: a setting
     * added without being named there fails here.
     */
    @Test
    void theQueuesAndSchedulesDescriptionsNameEverySettingAnEntryTakes() throws Exception {
        Map<String, String> descriptions = properties().valueStream().collect(Collectors.toMap(
                p -> p.get("name").asString(), p -> p.has("description") ? p.get("description").asString() : ""));
        assertThat(settingsOf(DelayQueueProperties.Queue.class)).hasSizeGreaterThan(15)
                .allSatisfy(setting -> assertThat(descriptions.get("delayqueue.queues")).as(setting).contains(setting));
        assertThat(settingsOf(DelayQueueProperties.Schedule.class)).hasSizeGreaterThan(6)
                .allSatisfy(setting -> assertThat(descriptions.get("delayqueue.schedules")).as(setting).contains(setting));
        // what counts against the payload limit: the headers too
        assertThat(descriptions.get("delayqueue.producer.max-payload-size")).contains("headers")
                .doesNotContain("bytes of its JSON");
    }

    /** The per-queue and per-schedule settings with a fixed set of values are enums, so an IDE offers the values. */
    @Test
    void settingsWithAFixedSetOfValuesAreEnums() throws NoSuchFieldException {
        assertThat(DelayQueueProperties.Queue.class.getDeclaredField("onExpiry").getType().isEnum()).isTrue();
        assertThat(DelayQueueProperties.Schedule.class.getDeclaredField("misfire").getType().isEnum()).isTrue();
        assertThat(DelayQueueProperties.Schedule.class.getDeclaredField("overlap").getType().isEnum()).isTrue();
    }

    /** The settings a map entry of {@code type} takes, in kebab case; nested groups as {@code retry.*}. */
    private static List<String> settingsOf(Class<?> type) {
        List<String> settings = new java.util.ArrayList<>();
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getName().equals("class")) {
                continue;
            }
            String name = property.getName().replaceAll("([A-Z])", "-$1").toLowerCase();
            boolean group = property.getPropertyType().getName().startsWith(DelayQueueProperties.class.getName() + "$");
            settings.add(group ? name + ".*" : name);
        }
        return settings;
    }

    /** The file next to the starter's own classes, not one from another jar on the test class path. */
    private static JsonNode properties() throws Exception {
        URL classes = DelayQueueProperties.class.getProtectionDomain().getCodeSource().getLocation();
        URL metadata = new URL(classes, METADATA);
        try (InputStream in = metadata.openStream()) {
            return JsonMapper.builder().build().readTree(in).get("properties");
        }
    }

    /** Leaf properties in kebab case; nested groups of {@link DelayQueueProperties} are descended into. */
    private static void walk(String prefix, Class<?> type, Set<String> names) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getName().equals("class")) {
                continue;
            }
            String name = prefix + "." + property.getName().replaceAll("([A-Z])", "-$1").toLowerCase();
            Class<?> propertyType = property.getPropertyType();
            if (propertyType.getEnclosingClass() != null
                    && propertyType.getName().startsWith(DelayQueueProperties.class.getName())) {
                walk(name, propertyType, names);
            } else {
                names.add(name);
            }
        }
    }
}
