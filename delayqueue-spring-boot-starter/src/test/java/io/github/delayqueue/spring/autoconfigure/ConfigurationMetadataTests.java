package io.github.delayqueue.spring.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metadata that the configuration processor generates into the starter's classes (and so its
 * jar), merged with {@code additional-spring-configuration-metadata.json}, documents every property of
 * {@link DelayQueueProperties} and {@link DelayQueueOutboxProperties}, found by walking the classes; gives the values
 * of every enum-typed property as hints (a constant added to an enum without a hint fails); and describes what an
 * entry of {@code delayqueue.queues} and of {@code delayqueue.schedules} takes.
 *
 * <p>The metadata format has no name for a property of a map's value ({@code delayqueue.queues.<code>.on-expiry}):
 * the hints of those are named after the map's {@code .values} hint, {@code delayqueue.queues.values.on-expiry}.
 * IDEs complete such properties from the value class itself (its enum types).
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
        assertThat(declared).hasSize(46).contains("delayqueue.schedules", "delayqueue.shared-idle-polling",
                "delayqueue.consumer.priority-aging", "delayqueue.consumer.strict-priority",
                "delayqueue.activity.enabled",
                "delayqueue.consumer.history.max-age", "delayqueue.consumer.history.max-count", "delayqueue.producer.observation-enabled",
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
        assertThat(defaults).containsEntry("delayqueue.consumer.priority-aging", "1m")
                .containsEntry("delayqueue.consumer.strict-priority", "false");
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
     * Every enum-typed setting of a queue entry and of a schedule entry has a hint whose values are exactly the enum's
     * constants, in the kebab case the documentation writes ({@code FIRE_ONCE}: {@code fire-once}), each described;
     * so do the enum-typed properties of the metadata ({@code initialize-schema}, the endpoint's {@code access}).
     */
    @Test
    void enumPropertiesHaveHintsListingEveryConstant() throws Exception {
        Map<String, Class<?>> enums = new LinkedHashMap<>();
        enumFields("delayqueue.queues.values.", DelayQueueProperties.Queue.class, enums);
        enumFields("delayqueue.schedules.values.", DelayQueueProperties.Schedule.class, enums);
        assertThat(enums).containsKeys("delayqueue.queues.values.on-expiry", "delayqueue.schedules.values.misfire",
                "delayqueue.schedules.values.overlap");
        ClassLoader loader = getClass().getClassLoader();
        for (JsonNode property : properties()) {
            String type = property.path("type").asString();
            if (!type.isEmpty() && !type.contains("<")) {
                Class<?> propertyType = Class.forName(type, false, loader);
                if (propertyType.isEnum()) {
                    enums.put(property.get("name").asString(), propertyType);
                }
            }
        }
        assertThat(enums).containsKeys("delayqueue.producer.outbox.initialize-schema", "management.endpoint.delayqueue.access");

        Map<String, JsonNode> hints = hints();
        List<String> problems = new ArrayList<>();
        enums.forEach((name, type) -> {
            JsonNode hint = hints.get(name);
            if (hint == null) {
                problems.add(name + " (" + type.getSimpleName() + ") has no hint");
                return;
            }
            Set<String> constants = Arrays.stream(type.getEnumConstants())
                    .map(c -> ((Enum<?>) c).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<String> values = hint.path("values").valueStream().map(v -> v.get("value").asString())
                    .collect(Collectors.toCollection(TreeSet::new));
            if (!values.equals(constants)) {
                problems.add(name + ": hint values " + values + ", constants of " + type.getName() + " " + constants);
            }
            hint.path("values").valueStream().filter(v -> !v.has("description") || v.get("description").asString().isBlank())
                    .forEach(v -> problems.add(name + ": value " + v.get("value").asString() + " has no description"));
        });
        assertThat(problems).isEmpty();
    }

    /** The description of each map names every setting an entry of it takes, nested groups as {@code retry.*}. */
    @Test
    void mapDescriptionsNameEverySettingOfAnEntry() throws Exception {
        Map<String, String> descriptions = properties().valueStream().collect(Collectors.toMap(
                p -> p.get("name").asString(), p -> p.path("description").asString()));
        Map<String, Class<?>> maps = Map.of("delayqueue.queues", DelayQueueProperties.Queue.class,
                "delayqueue.schedules", DelayQueueProperties.Schedule.class);
        List<String> problems = new ArrayList<>();
        maps.forEach((map, type) -> {
            Set<String> settings = new TreeSet<>();
            settings(type, "", settings);
            for (String setting : settings) {
                if (!Pattern.compile("(?<![\\w.-])" + Pattern.quote(setting) + "(?![\\w-])").matcher(descriptions.get(map)).find()) {
                    problems.add(map + "'s description does not name " + setting);
                }
            }
        });
        assertThat(problems).isEmpty();
        assertThat(descriptions.get("delayqueue.queues")).contains("rate-limit", "group-rate-limit", "on-expiry",
                "observation-enabled", "batch-size", "batch-wait", "default-priority", "priority-aging", "strict-priority");
    }

    /**
     * The payload limit counts the stored body, headers included (the engine's check in Sends), so no description
     * may say it counts only the JSON.
     */
    @Test
    void noDescriptionSaysThePayloadLimitCountsOnlyTheJson() throws Exception {
        List<String> descriptions = new ArrayList<>();
        properties().valueStream().forEach(p -> descriptions.add(p.path("description").asString()));
        hints().values().forEach(h -> h.path("values").valueStream()
                .forEach(v -> descriptions.add(v.path("description").asString())));
        assertThat(descriptions).noneMatch(d -> d.contains("bytes of its JSON"));
        Map<String, String> byName = properties().valueStream().collect(Collectors.toMap(
                p -> p.get("name").asString(), p -> p.path("description").asString()));
        assertThat(byName.get("delayqueue.producer.max-payload-size")).contains("headers");
        assertThat(byName.get("delayqueue.queues")).doesNotContain("bytes of its JSON");
    }

    /** The file next to the starter's own classes, not one from another jar on the test class path. */
    private static JsonNode properties() throws Exception {
        return metadata().get("properties");
    }

    private static Map<String, JsonNode> hints() throws Exception {
        Map<String, JsonNode> hints = new LinkedHashMap<>();
        metadata().path("hints").valueStream().forEach(h -> hints.put(h.get("name").asString(), h));
        return hints;
    }

    private static JsonNode metadata() throws Exception {
        URL classes = DelayQueueProperties.class.getProtectionDomain().getCodeSource().getLocation();
        URL metadata = new URL(classes, METADATA);
        try (InputStream in = metadata.openStream()) {
            return JsonMapper.builder().build().readTree(in);
        }
    }

    /** The enum-typed settings of {@code type} (superclasses and nested groups included), by hint name. */
    private static void enumFields(String prefix, Class<?> type, Map<String, Class<?>> into) {
        for (Class<?> t = type; t != null && t != Object.class; t = t.getSuperclass()) {
            for (Field field : t.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                String name = prefix + kebab(field.getName());
                if (field.getType().isEnum()) {
                    into.put(name, field.getType());
                } else if (field.getType().getName().startsWith(DelayQueueProperties.class.getName() + "$")) {
                    enumFields(name + ".", field.getType(), into);
                }
            }
        }
    }

    /** The settings of an entry of {@code type}: leaves in kebab case, nested groups as {@code retry.*}. */
    private static void settings(Class<?> type, String prefix, Set<String> into) {
        for (Class<?> t = type; t != null && t != Object.class; t = t.getSuperclass()) {
            for (Field field : t.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                String name = prefix + kebab(field.getName());
                if (!field.getType().isEnum() && field.getType().getName().startsWith(DelayQueueProperties.class.getName() + "$")) {
                    into.add(name + ".*");
                } else {
                    into.add(name);
                }
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
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
