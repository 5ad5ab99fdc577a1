package io.github.delayqueue.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps {@code docs/reference/configuration.md} in step with the code: every property of the configuration metadata
 * on the class path (the starter's, the endpoint's access and cache, the test support's) is documented with its
 * default, every documented property exists, and the per-queue and per-schedule tables list exactly the fields of
 * their settings classes.
 */
class ConfigurationDocsTest {

    private static final Pattern ROW = Pattern.compile("^\\| `((?:management\\.(?:health|endpoint)\\.)?delayqueue\\.[^`]+)` \\| ([^|]*) \\|",
            Pattern.MULTILINE);

    private static final String QUEUE_PREFIX = "delayqueue.queues.<code>.";

    private static final String SCHEDULE_PREFIX = "delayqueue.schedules.<name>.";

    private static final Map<String, String> documented = new LinkedHashMap<>();

    private static final Map<String, JsonNode> metadata = new LinkedHashMap<>();

    @BeforeAll
    static void load() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "reference", "configuration.md"));
        Matcher row = ROW.matcher(doc);
        while (row.find()) {
            documented.put(row.group(1), row.group(2).trim());
        }
        for (URL url : Collections.list(ConfigurationDocsTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode property : JsonMapper.builder().build().readTree(in).path("properties")) {
                    String name = property.path("name").asString();
                    if (name.startsWith("delayqueue.") || name.startsWith("management.health.delayqueue.")
                            || name.startsWith("management.endpoint.delayqueue.")) {
                        metadata.put(name, property);
                    }
                }
            }
        }
        assertThat(metadata).as("the starter's generated metadata is on the classpath").isNotEmpty();
    }

    @Test
    void everyPropertyInTheMetadataIsDocumentedWithItsDefault() {
        List<String> problems = new ArrayList<>();
        metadata.forEach((name, property) -> {
            String doc = documented.get(name);
            if (doc == null) {
                problems.add(name + " is not in docs/reference/configuration.md");
                return;
            }
            if (!property.path("description").isString() || property.path("description").asString().isBlank()) {
                problems.add(name + " has no description in the metadata");
            }
            String expected = property.has("defaultValue") ? normalize(property.get("defaultValue").asString()) : "(none)";
            if (!normalize(doc).equals(expected)) {
                problems.add(name + ": documented default " + doc + ", metadata default " + expected);
            }
        });
        assertThat(problems).isEmpty();
    }

    @Test
    void everyDocumentedGlobalPropertyExists() {
        assertThat(documented.keySet().stream().filter(name -> !name.startsWith(QUEUE_PREFIX) && !name.startsWith(SCHEDULE_PREFIX)))
                .allSatisfy(name -> assertThat(metadata).as("metadata").containsKey(name));
    }

    @Test
    void perQueueTableListsExactlyThePerQueueSettings() throws ClassNotFoundException {
        TreeSet<String> inDoc = new TreeSet<>();
        documented.keySet().stream().filter(name -> name.startsWith(QUEUE_PREFIX))
                .forEach(name -> inDoc.add(name.substring(QUEUE_PREFIX.length())));
        TreeSet<String> inCode = new TreeSet<>();
        fields(Class.forName("io.github.delayqueue.spring.autoconfigure.DelayQueueProperties$Queue"), "", inCode);
        assertThat(inDoc).isEqualTo(inCode);
        // and each falls back to a global property that exists, or (a setting only a queue has, such as partitions)
        // names its literal default
        assertThat(documented).allSatisfy((name, fallback) -> {
            if (name.startsWith(QUEUE_PREFIX)) {
                String value = fallback.replace("`", "");
                if (value.startsWith("delayqueue.")) {
                    assertThat(metadata).containsKey(value);
                } else {
                    assertThat(metadata).as("%s has a global property, so its default must name it", name)
                            .doesNotContainKey("delayqueue." + name.substring(QUEUE_PREFIX.length()));
                    assertThat(fallback).as(name).matches("`[^`]+`");
                }
            }
        });
    }

    @Test
    void scheduleTableListsExactlyTheScheduleSettings() throws ClassNotFoundException {
        TreeSet<String> inDoc = new TreeSet<>();
        documented.keySet().stream().filter(name -> name.startsWith(SCHEDULE_PREFIX))
                .forEach(name -> inDoc.add(name.substring(SCHEDULE_PREFIX.length())));
        TreeSet<String> inCode = new TreeSet<>();
        fields(Class.forName("io.github.delayqueue.spring.autoconfigure.DelayQueueProperties$Schedule"), "", inCode);
        assertThat(inDoc).isEqualTo(inCode);
    }

    /** The settings of {@code type}, its inherited ones included (per-queue and global settings share a superclass). */
    private static void fields(Class<?> type, String prefix, TreeSet<String> into) {
        if (type.getSuperclass() != null && type.getSuperclass() != Object.class) {
            fields(type.getSuperclass(), prefix, into);
        }
        for (Field field : type.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers())) {
                continue;
            }
            String name = prefix + kebab(field.getName());
            if (field.getType().getEnclosingClass() == type) {
                fields(field.getType(), name + ".", into);
            } else {
                into.add(name);
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
    }

    /** {@code `2`} and {@code 2.0}, {@code True} and {@code `true`} compare equal. */
    private static String normalize(String value) {
        String v = value.replace("`", "").trim();
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return v.toLowerCase();
        }
        try {
            return new BigDecimal(v).stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return v;
        }
    }
}
