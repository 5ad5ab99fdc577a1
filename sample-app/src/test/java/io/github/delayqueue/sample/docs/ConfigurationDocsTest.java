package io.github.delayqueue.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
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
 * Keeps {@code docs/reference/configuration.md} in step with the code: every property of the generated
 * configuration metadata (the starter's, the dashboard's, the endpoint's {@code management.endpoint.delayqueue.*})
 * is documented with its default, every documented property exists, the per-queue and per-schedule tables list
 * exactly the fields of their settings classes and name every value of their enum-typed settings, and the
 * {@code delayqueue.test.*} table lists exactly the properties that {@code delayqueue-test}'s classes read.
 */
class ConfigurationDocsTest {

    private static final Pattern ROW = Pattern.compile(
            "^\\| `((?:management\\.(?:health|endpoint)\\.)?delayqueue\\.[^`]+)` \\| ([^|]*) \\| ([^\\n]*)\\|\\s*$",
            Pattern.MULTILINE);

    /** A property name in the class files of delayqueue-test (string constants are stored as they are written). */
    private static final Pattern TEST_PROPERTY = Pattern.compile("delayqueue\\.test\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)*");

    private static final String TEST_PREFIX = "delayqueue.test.";

    private static final String QUEUE_PREFIX = "delayqueue.queues.<code>.";

    private static final String SCHEDULE_PREFIX = "delayqueue.schedules.<name>.";

    private static final Map<String, String> documented = new LinkedHashMap<>();

    private static final Map<String, JsonNode> metadata = new LinkedHashMap<>();

    /** The meaning column of each documented property. */
    private static final Map<String, String> meanings = new LinkedHashMap<>();

    private static final Map<String, JsonNode> hints = new LinkedHashMap<>();

    @BeforeAll
    static void load() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "reference", "configuration.md"));
        Matcher row = ROW.matcher(doc);
        while (row.find()) {
            assertThat(documented).as("documented twice").doesNotContainKey(row.group(1));
            documented.put(row.group(1), row.group(2).trim());
            meanings.put(row.group(1), row.group(3).trim());
        }
        for (URL url : Collections.list(ConfigurationDocsTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                JsonNode json = JsonMapper.builder().build().readTree(in);
                for (JsonNode property : json.path("properties")) {
                    String name = property.path("name").asString();
                    if (ours(name)) {
                        metadata.put(name, property);
                    }
                }
                for (JsonNode hint : json.path("hints")) {
                    if (ours(hint.path("name").asString())) {
                        hints.put(hint.path("name").asString(), hint);
                    }
                }
            }
        }
        assertThat(metadata).as("the starter's generated metadata is on the classpath").isNotEmpty()
                .containsKey("management.endpoint.delayqueue.access");
    }

    private static boolean ours(String name) {
        return name.startsWith("delayqueue.") || name.startsWith("management.health.delayqueue.")
                || name.startsWith("management.endpoint.delayqueue.");
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
        assertThat(documented.keySet().stream().filter(name -> !name.startsWith(QUEUE_PREFIX) && !name.startsWith(SCHEDULE_PREFIX)
                && !name.startsWith(TEST_PREFIX)))
                .allSatisfy(name -> assertThat(metadata).as("metadata").containsKey(name));
    }

    /**
     * {@code delayqueue-test} reads its properties from the environment, without metadata: the names are found in its
     * class files, so one added there and not here (or documented and no longer read) fails.
     */
    @Test
    void testTableListsExactlyThePropertiesDelayQueueTestReads() throws Exception {
        TreeSet<String> inCode = new TreeSet<>();
        Path location = Path.of(Class.forName("io.github.delayqueue.test.DelayQueueTester").getProtectionDomain()
                .getCodeSource().getLocation().toURI());
        for (byte[] classFile : classFiles(location)) {
            Matcher name = TEST_PROPERTY.matcher(new String(classFile, StandardCharsets.ISO_8859_1));
            while (name.find()) {
                inCode.add(name.group());
            }
        }
        assertThat(inCode).as("delayqueue-test's properties").contains("delayqueue.test.reset-configured-prefix");
        TreeSet<String> inDoc = new TreeSet<>();
        documented.keySet().stream().filter(name -> name.startsWith(TEST_PREFIX)).forEach(inDoc::add);
        assertThat(inDoc).isEqualTo(inCode);
    }

    /**
     * The meaning of a property with value hints names each value ({@code `fire-once`}); the hints of a queue's or a
     * schedule's setting ({@code delayqueue.queues.values.on-expiry}) belong to its row in the per-queue or schedule
     * table. Every hint belongs to a documented row.
     */
    @Test
    void everyHintedValueIsNamedInItsRow() {
        assertThat(hints).containsKeys("delayqueue.queues.values.on-expiry", "delayqueue.schedules.values.misfire",
                "delayqueue.schedules.values.overlap");
        List<String> problems = new ArrayList<>();
        hints.forEach((name, hint) -> {
            String row = name.replace("delayqueue.queues.values.", QUEUE_PREFIX)
                    .replace("delayqueue.schedules.values.", SCHEDULE_PREFIX);
            String meaning = meanings.get(row);
            if (meaning == null) {
                problems.add(name + ": no row " + row);
                return;
            }
            for (JsonNode value : hint.path("values")) {
                if (!meaning.contains("`" + value.path("value").asString() + "`")) {
                    problems.add(row + " does not name the value `" + value.path("value").asString() + "`");
                }
            }
        });
        assertThat(problems).isEmpty();
    }

    /** The class files under {@code location}: a directory of classes or a jar. */
    private static List<byte[]> classFiles(Path location) throws IOException {
        List<byte[]> files = new ArrayList<>();
        if (Files.isDirectory(location)) {
            try (Stream<Path> paths = Files.walk(location)) {
                for (Path path : paths.filter(p -> p.toString().endsWith(".class")).toList()) {
                    files.add(Files.readAllBytes(path));
                }
            }
            return files;
        }
        try (JarFile jar = new JarFile(location.toFile())) {
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements();) {
                JarEntry entry = entries.nextElement();
                if (entry.getName().endsWith(".class")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        files.add(in.readAllBytes());
                    }
                }
            }
        }
        return files;
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
        // gives its own default: a literal (`1`) or a parenthesised note ((none))
        assertThat(documented).allSatisfy((name, fallback) -> {
            if (name.startsWith(QUEUE_PREFIX)) {
                String value = fallback.replace("`", "");
                if (value.startsWith("delayqueue.")) {
                    assertThat(metadata).containsKey(value);
                } else {
                    assertThat(metadata).as("%s has a global property, so its default must name it", name)
                            .doesNotContainKey("delayqueue." + name.substring(QUEUE_PREFIX.length()));
                    assertThat(fallback).as(name).matches("`[^`]+`|\\([^()]+\\)");
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

    /**
     * {@code `2`} and {@code 2.0}, {@code True} and {@code `true`}, an enum's {@code read_only} and the documented
     * {@code read-only} compare equal.
     */
    private static String normalize(String value) {
        String v = value.replace("`", "").trim();
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return v.toLowerCase();
        }
        if (v.matches("[a-z]+(?:_[a-z]+)+")) {
            return v.replace('_', '-');
        }
        try {
            return new BigDecimal(v).stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return v;
        }
    }
}
