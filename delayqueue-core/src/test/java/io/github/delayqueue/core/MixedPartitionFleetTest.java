package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * A fleet changing a queue from one partition to three, with an instance of the old configuration still running: the
 * one-partition client records its count at first use, so the client with three partitions is refused instead of
 * recording 3 while the old instance goes on writing keys that no partitioned consumer reads.
 */
@ExtendWith(RedisExtension.class)
class MixedPartitionFleetTest {

    private final RedisContext redis;

    MixedPartitionFleetTest(RedisContext redis) {
        this.redis = redis;
    }

    private DelayQueueClient client(String queue, int partitions) {
        return DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).partitions(queue, partitions).build());
    }

    private String recorded(String queue) {
        return redis.redisson().<String, String>getMap(QueueKeys.partitionsKey(redis.prefix(), queue), StringCodec.INSTANCE)
                .get("count");
    }

    private long pendingIn(DelayQueueClient client, String queue, int partition) {
        return redis.redisson().getScoredSortedSet(client.queueRoute(queue).part(partition).keys().keys().get(1).toString(),
                StringCodec.INSTANCE).size();
    }

    @Test
    void aClientWithThreePartitionsIsRefusedWhileAOnePartitionClientUsesTheQueue() {
        String queue = "one-to-three";
        DelayQueueClient old = client(queue, 1);
        old.send(queue, "before", Duration.ZERO, SendOptions.id("before"));
        DelayQueueConsumer drain = old.newConsumer(queue, String.class, (p, c) -> { }, ConsumerOptions.DEFAULTS);
        drain.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> old.stats(queue).pending() == 0
                    && old.stats(queue).inFlight() == 0);
        } finally {
            drain.stop();
        }

        // the queue is empty now, but the old instance still runs: the new one must not take the queue over
        DelayQueueClient three = client(queue, 3);
        assertThatThrownBy(() -> three.send(queue, "new", Duration.ofHours(1), SendOptions.id("new")))
                .isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("has 1 partition recorded in Redis").hasMessageContaining("this client has 3");
        assertThatThrownBy(() -> three.stats(queue)).isInstanceOf(PartitionCountException.class);
        DelayQueueConsumer wrong = three.newConsumer(queue, String.class, (p, c) -> { }, ConsumerOptions.DEFAULTS);
        wrong.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> wrong.failure() != null);
            assertThat(wrong.failure()).isInstanceOf(PartitionCountException.class);
        } finally {
            wrong.stop();
        }
        // nothing was written by the refused client, and the old instance's sends still land where it reads
        assertThat(recorded(queue)).isEqualTo("1");
        for (int p = 0; p < 3; p++) {
            assertThat(pendingIn(three, queue, p)).isZero();
        }
        old.send(queue, "after", Duration.ofHours(1), SendOptions.id("after"));
        assertThat(old.stats(queue).pending()).isEqualTo(1);
        assertThat(old.cancel(queue, "after")).isTrue();
    }

    @Test
    void afterTheDocumentedChangeTheQueueTakesThreePartitions() {
        String queue = "changed";
        DelayQueueClient old = client(queue, 1);
        old.warmUp(queue);
        assertThat(recorded(queue)).isEqualTo("1");
        // docs/operations/scaling.md: stop every client once the queue is empty, delete the record, start with the new count
        redis.redisson().getKeys().delete(QueueKeys.partitionsKey(redis.prefix(), queue));
        DelayQueueClient three = client(queue, 3);
        three.send(queue, "new", Duration.ofHours(1), SendOptions.id("new"));
        assertThat(recorded(queue)).isEqualTo("3");
        assertThat(three.stats(queue).pending()).isEqualTo(1);
        // an instance started with the old configuration is refused
        DelayQueueClient restarted = client(queue, 1);
        assertThatThrownBy(() -> restarted.send(queue, "again", Duration.ZERO)).isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("has 3 partitions recorded").hasMessageContaining("this client has 1");
    }

    @Test
    void messagesOfAnEarlierReleaseWithNoRecordKeepPartitionsOut() {
        String queue = "no-record";
        DelayQueueClient old = client(queue, 1);
        old.send(queue, "old", Duration.ofHours(1), SendOptions.id("old"));
        // releases before the one-partition record wrote none: the messages alone must keep a partitioned client out
        redis.redisson().getKeys().delete(QueueKeys.partitionsKey(redis.prefix(), queue));
        DelayQueueClient four = client(queue, 4);
        assertThatThrownBy(() -> four.send(queue, "new", Duration.ZERO)).isInstanceOf(PartitionCountException.class)
                .hasMessageContaining("one-partition layout");
        assertThat(recorded(queue)).isNull();
        assertThat(old.cancel(queue, "old")).isTrue();
    }
}
