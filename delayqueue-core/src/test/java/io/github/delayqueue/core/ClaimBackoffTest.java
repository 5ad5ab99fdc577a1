package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * What guarantees.md promises of a claim that fails: retried with back-off (100 ms doubling, capped at
 * {@code max(1 s, min(5 × maxPollInterval, 10 s))}), logged on the first failure and every 20th after, and the
 * recovery logged once Redis answers again.
 */
@ExtendWith(RedisExtension.class)
class ClaimBackoffTest {

    private record Logged(long atNanos, Level level, String message) {
    }

    private final RedisContext redis;
    private final Logger logger = (Logger) LoggerFactory.getLogger(DelayQueueConsumer.class);
    private final List<Logged> logged = new CopyOnWriteArrayList<>();
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            if (event.getFormattedMessage().startsWith("Queue 'claim-fails'")) {
                logged.add(new Logged(System.nanoTime(), event.getLevel(), event.getFormattedMessage()));
            }
        }
    };
    private DelayQueueConsumer consumer;

    ClaimBackoffTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        if (consumer != null) {
            consumer.stop();
        }
        logger.detachAppender(appender);
    }

    @Test
    void aFailingClaimBacksOffToItsCapAndIsLoggedOnTheFirstFailureAndEveryTwentieth() {
        String queue = "claim-fails";
        DelayQueueClient client = redis.client();
        appender.start();
        logger.addAppender(appender);
        // the delayed set replaced by a string: every claim script fails (WRONGTYPE) until the key is deleted
        String delayed = QueueKeys.of(redis.prefix(), queue).keys().get(1).toString();
        redis.redisson().getBucket(delayed, StringCodec.INSTANCE).set("not a sorted set");
        List<String> handled = new CopyOnWriteArrayList<>();
        // cap = max(1 s, min(5 x 100 ms, 10 s)) = 1 s
        consumer = client.newConsumer(queue, String.class, (payload, context) -> handled.add(payload),
                ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100)).build());
        consumer.start();

        await().atMost(Duration.ofSeconds(90)).until(() -> failures().size() >= 2);
        List<Logged> failures = failures();
        assertThat(failures.get(0).message()).contains("polling Redis failed (1 in a row), retrying in 100 ms")
                .contains("WRONGTYPE");
        assertThat(failures.get(1).message()).contains("polling Redis failed (20 in a row), retrying in 1000 ms");
        // the 19 waits between them: 100, 200, 400, 800 ms, then 15 at the 1 s cap: 16.5 s. One wait may end early:
        // the wake-up channel's subscription completing wakes the poller once (engine.WakeUps: a message sent before
        // it took effect is not left to the poll), which a fresh-clone verify saw cut the first wait (16,416 ms).
        // Much less would be a busy loop or no back-off (a constant 100 ms: 1.9 s; a 500 ms cap: 9 s); uncapped
        // doubling would wait for days (2^19 x 100 ms); 90 s is a bound only a fault crosses
        long between = Duration.ofNanos(failures.get(1).atNanos() - failures.get(0).atNanos()).toMillis();
        assertThat(between).isBetween(16_500L - 1_000 - 50, 90_000L);
        assertThat(failures).allMatch(f -> f.level() == Level.WARN);

        redis.redisson().getBucket(delayed, StringCodec.INSTANCE).delete();
        client.send(queue, "after", Duration.ZERO);
        await().atMost(Duration.ofSeconds(30)).until(() -> handled.contains("after"));
        assertThat(logged).anyMatch(l -> l.level() == Level.INFO
                && l.message().matches("Queue 'claim-fails': Redis answers again after \\d+ failed polls"));
        assertThat(failures()).hasSizeLessThanOrEqualTo(3); // the 40th at the most, never one per failure
    }

    private List<Logged> failures() {
        return logged.stream().filter(l -> l.message().contains("polling Redis failed")).toList();
    }
}
