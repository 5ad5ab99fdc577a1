package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * What reads show of grouped messages. QueueStats (stats.lua): a due message its group's rate limit holds back still
 * counts as ready (a backlog: awaitIdle, health and the dashboard see it), and the next due time is that of a message,
 * never the time a quiet group's flow fields are swept (the groups marker in delayed). QueuedMessage and DeadLetter
 * name the message's group.
 */
@ExtendWith(RedisExtension.class)
class GroupsStatsTest {

    private final RedisContext redis;

    GroupsStatsTest(RedisContext redis) {
        this.redis = redis;
    }

    @Test
    void aDueMessageItsGroupLimitHoldsBackIsReadyAndNothingPendingHasNoNextDueTime() {
        String queue = "group-stats";
        DelayQueueClient client = redis.client();
        client.sendAll(queue, List.of(SendRequest.of("one", Duration.ZERO, SendOptions.id("one").group("G")),
                SendRequest.of("two", Duration.ZERO, SendOptions.id("two").group("G"))));
        AtomicInteger handled = new AtomicInteger();
        // one permit an hour: the first message runs, the second (due) waits for the group's next permit
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> handled.incrementAndGet(),
                ConsumerOptions.builder().groupRateLimit(RateLimit.parse("1/1h")).build());
        consumer.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == 1 && client.stats(queue).inFlight() == 0);
            QueueStats stats = client.stats(queue);
            assertThat(stats.pending()).isEqualTo(1);
            assertThat(stats.ready()).isEqualTo(1); // due, held back by its group's limit: a backlog
            // and throttled: held on purpose, not waiting for a consumer (ready - throttled is 0)
            assertThat(stats.flow().throttled()).isEqualTo(1);
            assertThat(stats.flow().throttledByGroups()).isEqualTo(1);
            assertThat(stats.nextDueAt()).isAfter(stats.serverTime().plus(Duration.ofMinutes(50))); // the next permit
        } finally {
            consumer.stop();
        }
        assertThat(client.cancel(queue, "two")).isTrue();
        QueueStats stats = client.stats(queue);
        assertThat(stats.pending()).isZero();
        assertThat(stats.ready()).isZero();
        // the group's flow fields wait an hour to be swept (group-idle), but no message is due then
        assertThat(stats.nextDueAt()).isNull();
        assertThat(handled.get()).isEqualTo(1);
    }

    @Test
    void liveMessagesAndDeadLettersNameTheirGroup() {
        String queue = "group-reads";
        DelayQueueClient client = redis.client();
        client.sendAll(queue, List.of(SendRequest.of("grouped", Duration.ofHours(1), SendOptions.id("g").group("tenant-a")),
                SendRequest.of("plain", Duration.ofHours(1), SendOptions.id("p"))));
        assertThat(client.message(queue, "g")).get().extracting(QueuedMessage::group).isEqualTo("tenant-a");
        assertThat(client.pendingInGroup(queue, "tenant-a", 0, 10).messages()).extracting(QueuedMessage::group)
                .containsExactly("tenant-a");
        assertThat(client.message(queue, "p")).get().extracting(QueuedMessage::group).isNull();
        assertThat(client.message(queue, "g").get().headers()).isEmpty(); // the group header stays hidden

        client.reschedule(queue, "g", Duration.ZERO);
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            throw new IllegalStateException("down");
        }, ConsumerOptions.builder().retry(new RetryPolicy(1, Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0.0)).build());
        consumer.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> client.stats(queue).dead() == 1);
        } finally {
            consumer.stop();
        }
        assertThat(client.deadLetters(queue, 10)).extracting(DeadLetter::id, DeadLetter::group)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("g", "tenant-a"));
    }
}
