package io.github.delayqueue.spring.it;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * At startup the starter connects and loads the scripts in the background, so the first send does not pay
 * for them: in a producer-only application (no consumer loads anything), the send script is in Redis's
 * script cache before the application has sent anything.
 */
class RedisWarmUpIntegrationTests {

    @Test
    void theScriptsAreLoadedBeforeTheFirstSend() throws Exception {
        String enqueue = sha1(Scripts.source("enqueue.lua"));
        RedissonClient redis = TestRedis.newClient();
        ConfigurableApplicationContext context = null;
        try {
            RScript scripts = redis.getScript(StringCodec.INSTANCE);
            scripts.scriptFlush(); // as after a Redis restart; the engine reloads on NOSCRIPT either way
            assertThat(scripts.scriptExists(enqueue)).containsExactly(false);
            context = new SpringApplicationBuilder(TestApplication.class).properties(TestApplication.PROPERTIES)
                    .properties("spring.data.redis.url=" + TestRedis.url(), "delayqueue.consumer.enabled=false",
                            "delayqueue.key-prefix=" + TestRedis.uniquePrefix())
                    .run();
            await().atMost(Duration.ofSeconds(10)).until(() -> scripts.scriptExists(enqueue).get(0));
        } finally {
            if (context != null) {
                context.close();
            }
            redis.shutdown();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("delayqueue-warm-up") && t.isAlive()));
    }


    private static String sha1(String text) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
