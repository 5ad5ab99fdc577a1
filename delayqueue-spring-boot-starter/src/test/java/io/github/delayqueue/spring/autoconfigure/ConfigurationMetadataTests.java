package io.github.delayqueue.spring.autoconfigure;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** The metadata that the configuration processor generates into the jar documents every property. */
class ConfigurationMetadataTests {

    private static final File METADATA = new File("target/classes/META-INF/spring-configuration-metadata.json");

    @Test
    void everyPropertyIsDocumented() {
        assertThat(METADATA).exists();
        JsonNode properties = JsonMapper.builder().build().readTree(METADATA).get("properties");
        Map<String, String> descriptions = properties.valueStream().collect(Collectors.toMap(
                p -> p.get("name").asString(), p -> p.has("description") ? p.get("description").asString() : ""));
        assertThat(descriptions).allSatisfy((name, description) -> assertThat(description).as(name).isNotBlank());
        assertThat(descriptions).containsKeys(List.of("delayqueue.key-prefix", "delayqueue.scan-packages",
                "delayqueue.queues", "delayqueue.producer.transaction-aware", "delayqueue.producer.max-payload-size",
                "delayqueue.producer.max-batch-size", "delayqueue.consumer.enabled", "delayqueue.consumer.concurrency",
                "delayqueue.consumer.batch-size", "delayqueue.consumer.visibility-timeout",
                "delayqueue.consumer.handler-timeout", "delayqueue.consumer.max-poll-interval",
                "delayqueue.consumer.shutdown-timeout", "delayqueue.consumer.retry.max-attempts",
                "delayqueue.consumer.retry.initial-backoff", "delayqueue.consumer.retry.multiplier",
                "delayqueue.consumer.retry.max-backoff", "delayqueue.consumer.retry.jitter").toArray(String[]::new));
        assertThat(descriptions).hasSize(18);
        assertThat(descriptions.get("delayqueue.consumer.enabled")).startsWith("Whether");
        assertThat(descriptions.get("delayqueue.producer.transaction-aware")).startsWith("Whether");
    }

    @Test
    void defaultsAreRecorded() {
        JsonNode properties = JsonMapper.builder().build().readTree(METADATA).get("properties");
        Map<String, String> defaults = properties.valueStream().filter(p -> p.has("defaultValue")).collect(
                Collectors.toMap(p -> p.get("name").asString(), p -> p.get("defaultValue").asString()));
        assertThat(defaults).containsEntry("delayqueue.key-prefix", "dq")
                .containsEntry("delayqueue.consumer.visibility-timeout", "30s")
                .containsEntry("delayqueue.producer.max-payload-size", "1MB");
    }
}
