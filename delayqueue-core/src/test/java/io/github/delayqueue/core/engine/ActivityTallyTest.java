package io.github.delayqueue.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.DeadLetterCause;
import io.github.delayqueue.core.DelayQueueListener;
import io.github.delayqueue.core.MessageContext;

/** The counts in memory between flushes: kept over failed writes, bounded, and passed on to the application's listener. */
class ActivityTallyTest {

    private final AtomicLong now = new AtomicLong(1_000 * 60_000L); // minute 1000, local and Redis clocks alike
    private final AtomicBoolean redisDown = new AtomicBoolean();
    private final List<long[]> written = new ArrayList<>();
    private final List<String> heard = new ArrayList<>();

    private final ActivityTally tally = new ActivityTally(new DelayQueueListener() {
        @Override
        public void acknowledged(String queue, int messages) {
            heard.add("acknowledged " + queue + " " + messages);
        }
    }, (queue, minutes) -> {
        if (redisDown.get()) {
            throw new IllegalStateException("Redis is down");
        }
        written.addAll(minutes);
        return now.get();
    }, now::get);

    private static MessageContext context(String queue) {
        return new MessageContext(queue, "id", 1, Instant.EPOCH, null, java.util.Map.of());
    }

    @Test
    void countsOfAFailedFlushAreWrittenByTheNextOneAndTheListenerStillHearsEveryEvent() {
        tally.acknowledged("q", 3);
        tally.retried("q", 1);
        tally.deadLettered("q", DeadLetterCause.HANDLER_FAILED, 2);
        tally.handlerStarted(context("q"), Duration.ofMillis(40));
        tally.handlerStarted(context("q"), Duration.ofMillis(100));
        redisDown.set(true);
        tally.flush();
        now.addAndGet(60_000); // the next minute
        tally.acknowledged("q", 1);
        tally.handlerStarted(context("q"), Duration.ofMillis(70));
        tally.flush();
        assertThat(written).isEmpty();
        assertThat(tally.pending().get("q")).containsOnlyKeys(1_000L, 1_001L);

        redisDown.set(false);
        tally.flush();
        assertThat(written).containsExactly(new long[] {1_000, 3, 1, 2, 2, 140, 100}, new long[] {1_001, 1, 0, 0, 1, 70, 70});
        assertThat(tally.pending()).isEmpty();
        assertThat(heard).containsExactly("acknowledged q 3", "acknowledged q 1");
    }

    @Test
    void whileFlushesFailAtMostTwoHoursOfMinutesAreKept() {
        redisDown.set(true);
        for (int minute = 0; minute < ActivityTally.MAX_MINUTES + 30; minute++) {
            tally.acknowledged("q", 1);
            tally.flush();
            now.addAndGet(60_000);
        }
        assertThat(tally.pending().get("q")).hasSizeLessThanOrEqualTo(ActivityTally.MAX_MINUTES);
        redisDown.set(false);
        tally.flush();
        assertThat(written).hasSizeLessThanOrEqualTo(ActivityTally.MAX_MINUTES)
                .allSatisfy(minute -> assertThat(minute[0]).isGreaterThan(now.get() / 60_000 - ActivityTally.MAX_MINUTES));
    }
}
