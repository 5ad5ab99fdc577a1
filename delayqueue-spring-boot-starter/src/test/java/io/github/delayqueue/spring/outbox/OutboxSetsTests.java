package io.github.delayqueue.spring.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.PreparedSet;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import static org.assertj.core.api.Assertions.assertThat;

/** How a member row names its set; no Redis is reached (the opening's parts are {@code PreparedSet.openings}'). */
class OutboxSetsTests {

    @Test
    void aMemberRowNamesItsSetInItsBody() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:1"); // never connected: prepare writes nothing
        config.setLazyInitialization(true);
        RedissonClient redisson = Redisson.create(config);
        try {
            DelayQueueClient client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix("t").build());
            PreparedSet set = client.prepareSet(JobSet.builder().id("my-set:1").add("work", List.of(
                    SendRequest.of("x", Duration.ZERO, SendOptions.id("m").withHeaders(java.util.Map.of("k", "\"dq-set\":\"no\""))
                            .withDedupWindow(Duration.ofMinutes(5))))).build());
            String body = set.sends().get(0).messages().get(0).body();
            assertThat(OutboxSets.setOf(body)).isEqualTo("my-set:1");
            assertThat(OutboxSets.setOf(client.prepare("work", List.of(SendRequest.of("x", Duration.ZERO, SendOptions.none()
                    .withHeaders(java.util.Map.of("k", "\"dq-set\":\"no\"")))))
                    .messages().get(0).body())).isNull();
            assertThat(OutboxSets.setOf(client.prepare("work", List.of(SendRequest.of("\"dq-set\":\"no\"", Duration.ZERO)))
                    .messages().get(0).body())).isNull();
        } finally {
            redisson.shutdown();
        }
    }
}
