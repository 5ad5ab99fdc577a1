package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RScoredSortedSet;
import org.redisson.client.codec.StringCodec;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/** An Error inside an engine loop is logged and the loop goes on; it never ends silently. */
@ExtendWith(RedisExtension.class)
class EngineLoopErrorTest {

    private final RedisContext redis;
    private final Logger logger = (Logger) LoggerFactory.getLogger(DelayQueueConsumer.class);
    private final CountDownLatch release = new CountDownLatch(1);
    private DelayQueueConsumer consumer;
    private AppenderBase<ILoggingEvent> appender;

    EngineLoopErrorTest(RedisContext redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() {
        release.countDown();
        if (consumer != null) {
            consumer.stop();
        }
        if (appender != null) {
            logger.detachAppender(appender);
        }
    }

    @Test
    void theLeaseKeeperGoesOnAfterAnError() {
        String queue = "keeper-error";
        DelayQueueClient client = redis.client();
        // Logback passes an Error from an appender through to the caller: the keeper's "lease lost" warning
        // throws one, once, inside the keeper, as an OutOfMemoryError there would
        AtomicBoolean thrown = new AtomicBoolean();
        List<String> errors = new CopyOnWriteArrayList<>();
        appender = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                if (event.getFormattedMessage().contains("was lost") && thrown.compareAndSet(false, true)) {
                    throw new StackOverflowError("thrown by a test appender");
                }
                if (event.getLevel() == Level.ERROR) {
                    errors.add(event.getFormattedMessage());
                }
            }
        };
        appender.start();
        logger.addAppender(appender);

        List<String> started = new CopyOnWriteArrayList<>();
        consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            started.add(payload + "#" + context.attempt());
            release.await(30, TimeUnit.SECONDS);
            // a 3 s lease, extended every second: the witness below is redelivered (failing the test) only if the
            // keeper runs 2 s late. With 600 ms (every 200 ms) a keeper 400 ms late on a loaded machine let the
            // poller, asleep until the lease deadline, take the witness again while its handler ran
        }, ConsumerOptions.builder().visibilityTimeout(Duration.ofSeconds(3)).build());
        consumer.start();

        RScoredSortedSet<String> inflight = redis.redisson()
                .getScoredSortedSet(QueueKeys.of(redis.prefix(), queue).keys().get(2).toString(), StringCodec.INSTANCE);
        client.send(queue, "victim", Duration.ZERO, SendOptions.id("victim"));
        await().atMost(Duration.ofSeconds(20)).until(() -> started.contains("victim#1"));
        inflight.clear(); // its lease is gone: the keeper's next extension fails and warns
        await().atMost(Duration.ofSeconds(20)).untilTrue(thrown);

        client.send(queue, "witness", Duration.ZERO, SendOptions.id("witness"));
        await().atMost(Duration.ofSeconds(20)).until(() -> started.contains("witness#1"));
        Double first = inflight.getScore(inflight.first());
        // the keeper extends the witness's lease (every second): its deadline moves a second or more past the one read here
        await().atMost(Duration.ofSeconds(20)).until(() -> inflight.getScore(inflight.first()) >= first + 1_000);
        assertThat(started).containsExactly("victim#1", "witness#1"); // never redelivered while it runs
        assertThat(errors).anyMatch(m -> m.contains("extending leases failed"));
    }
}
