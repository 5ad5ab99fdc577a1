package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.testing.TestRedis;

/**
 * A pause or resume of a partitioned queue that fails part-way (docs/reference/guarantees.md): the queue is one script call
 * per partition, so a Redis error after the first partitions leaves them paused. Made with an ACL user denied the
 * keys of the last partition: {@code isPaused} answers true while any partition is, and once the user may reach
 * every key, calling {@code pause} or {@code resume} again completes it.
 */
class PartialPauseTest {

    private static final String QUEUE = "part-paused";
    private static final String USER = "dq-part-" + UUID.randomUUID().toString().substring(0, 8);

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static RedissonClient full;
    private static RedissonClient limited;

    @BeforeAll
    static void createUser() throws IOException {
        deny(2);
        full = TestRedis.newClient();
        limited = RestrictedAclTest.newClient(USER);
    }

    @AfterAll
    static void dropUser() throws IOException {
        try {
            if (limited != null) {
                limited.shutdown();
            }
            if (full != null) {
                full.getKeys().unlinkByPattern(PREFIX + ":*");
                full.shutdown();
            }
        } finally {
            RestrictedAclTest.command("ACL", "DELUSER", USER);
        }
    }

    /** Lets {@link #USER} reach every key under the prefix but those of partition {@code denied} of 3. */
    private static void deny(int denied) throws IOException {
        RestrictedAclTest.command("ACL", "SETUSER", USER, "reset", "on", ">" + RestrictedAclTest.PASSWORD,
                "~" + PREFIX + ":{" + QUEUE + "}:*", "~" + PREFIX + ":{" + QUEUE + "#" + (denied + 1) % 3 + "*",
                "~" + PREFIX + ":{" + QUEUE + "#" + (denied + 2) % 3 + "*", "&*", "+@all");
    }

    private static void allowAll() throws IOException {
        RestrictedAclTest.command("ACL", "SETUSER", USER, "~*");
    }

    private static DelayQueueClient client(RedissonClient redisson) {
        return DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(PREFIX).partitions(QUEUE, 3).build());
    }

    /** How many of the queue's three partitions hold the pause mark. */
    private static int pausedPartitions() {
        int paused = 0;
        for (String key : full.getKeys().getKeysByPattern(PREFIX + ":{" + QUEUE + "#*}:paused")) {
            paused += full.getMap(key).isExists() ? 1 : 0;
        }
        return paused;
    }

    @Test
    void aPauseOrResumeThatFailsPartWayIsReportedAndCompletedByCallingAgain() throws IOException {
        DelayQueueClient admin = client(full);
        DelayQueueClient app = client(limited);

        assertThatThrownBy(() -> app.pause(QUEUE)).isInstanceOf(DelayQueueException.class)
                .hasMessageContaining("pause queue '" + QUEUE + "'");
        assertThat(pausedPartitions()).isEqualTo(2);
        assertThat(admin.isPaused(QUEUE)).isTrue();
        allowAll();
        app.pause(QUEUE);
        assertThat(pausedPartitions()).isEqualTo(3);
        assertThat(app.isPaused(QUEUE)).isTrue();

        deny(2);
        assertThatThrownBy(() -> app.resume(QUEUE)).isInstanceOf(DelayQueueException.class)
                .hasMessageContaining("resume queue '" + QUEUE + "'");
        assertThat(pausedPartitions()).isEqualTo(1);
        assertThat(admin.isPaused(QUEUE)).isTrue();
        allowAll();
        app.resume(QUEUE);
        assertThat(pausedPartitions()).isZero();
        assertThat(app.isPaused(QUEUE)).isFalse();
    }
}
