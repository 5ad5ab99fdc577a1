package io.github.delayqueue.spring.runtime;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.core.protocol.Scripts;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Readiness waits for the startup warm-up, bounded by {@code delayqueue.warm-up-wait}: an application's own
 * {@link ApplicationReadyEvent} listener (where applications send their first messages) finds the scripts loaded and
 * the codec prepared for the handlers' payload types, even when Redis answers slowly; and a Redis that never answers
 * holds readiness back only for the bound.
 */
class ReadinessWarmUpIntegrationTests {

    private static final String[] PROPERTIES = {"spring.main.banner-mode=off", "spring.main.web-application-type=none",
            "delayqueue.consumer.enabled=false"};

    private static boolean warmUpRunning() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("delayqueue-warm-up") && t.isAlive());
    }

    @Test
    void theApplicationsReadyListenersFindTheWarmUpDoneOnASlowRedis() throws Exception {
        String enqueue = sha1(Scripts.source("enqueue.lua"));
        RedissonClient redis = TestRedis.newClient();
        RScript scripts = redis.getScript(StringCodec.INSTANCE);
        String prefix = TestRedis.uniquePrefix();
        AtomicReference<String> atReady = new AtomicReference<>();
        RuntimeApp.PREPARED.clear();
        // every reply 150 ms late: the warm-up's round trips (version probe, a dozen script loads, the partition
        // check) take seconds, far longer than the rest of this application's startup
        try (SlowRedis slow = SlowRedis.delaying(Duration.ofMillis(150))) {
            scripts.scriptFlush();
            ApplicationListener<ApplicationReadyEvent> firstSend = event -> atReady.set("scripts loaded: "
                    + scripts.scriptExists(enqueue).get(0) + ", prepared: "
                    + RuntimeApp.PREPARED.contains(RuntimeApp.Order.class));
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(RuntimeApp.class)
                    .properties(PROPERTIES).properties("spring.data.redis.url=" + slow.url(),
                            "delayqueue.key-prefix=" + prefix, "delayqueue.warm-up-wait=2m")
                    .listeners(firstSend).run()) {
                assertThat(atReady.get()).isEqualTo("scripts loaded: true, prepared: true");
                assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
                        .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            }
        } finally {
            TestRedis.deleteKeys(prefix);
            redis.shutdown();
        }
    }

    @Test
    void aRedisThatNeverAnswersHoldsReadinessBackOnlyForTheBound() throws Exception {
        AtomicLong started = new AtomicLong();
        AtomicLong ready = new AtomicLong();
        AtomicReference<Boolean> warmUpStillRunning = new AtomicReference<>();
        try (SlowRedis silent = SlowRedis.silent()) {
            ApplicationListener<ApplicationStartedEvent> onStarted = event -> started.set(System.nanoTime());
            ApplicationListener<ApplicationReadyEvent> onReady = event -> {
                ready.set(System.nanoTime());
                warmUpStillRunning.set(warmUpRunning());
            };
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(RuntimeApp.class)
                    .properties(PROPERTIES).properties("spring.data.redis.url=" + silent.url(),
                            "delayqueue.key-prefix=" + TestRedis.uniquePrefix(), "delayqueue.warm-up-wait=1s")
                    .listeners(onStarted, onReady).run()) {
                Duration held = Duration.ofNanos(ready.get() - started.get());
                // at least the bound (the warm-up cannot finish against this server), and nowhere near what the
                // warm-up itself takes to give up (Redisson's 3 s timeout, retried)
                assertThat(held).isBetween(Duration.ofMillis(900), Duration.ofSeconds(8));
                assertThat(warmUpStillRunning.get()).isTrue();
                assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
                        .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            }
        }
    }

    @Test
    void aNegativeWaitIsRefusedAtStartup() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(RuntimeApp.class).properties(PROPERTIES)
                .properties("spring.data.redis.url=" + TestRedis.url(), "delayqueue.warm-up-wait=-1s").run())
                .hasRootCauseInstanceOf(DelayQueueConfigurationException.class)
                .rootCause().hasMessageContaining("delayqueue.warm-up-wait must not be negative, was PT-1S");
    }


    private static String sha1(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
