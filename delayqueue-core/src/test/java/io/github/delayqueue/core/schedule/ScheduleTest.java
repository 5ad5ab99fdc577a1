package io.github.delayqueue.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.delayqueue.core.BatchOptions;
import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.MessageHandler;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;

/**
 * The guarantees of recurring schedules, against a real Redis: every tick instant once (several instances, restarts,
 * late redeliveries), misfire and overlap policies, pause and resume for every instance, replace and remove, and bad
 * input refused before anything is written. Ticks are driven either by real consumers (short periods) or by calling
 * the interceptor as a consumer would, with the tick's own headers, where the point is one exact interleaving.
 */
@ExtendWith(RedisExtension.class)
class ScheduleTest {

    static final Duration DEADLINE = Duration.ofSeconds(30);

    /** The queues of these tests, for subclasses that partition them. */
    static final List<String> QUEUES = List.of("sched-bad", "sched-declare", "sched-fire-all", "sched-fire-once", "sched-instances", "sched-list", "sched-many", "sched-no-payload", "sched-overlap", "sched-pause", "sched-pause-race", "sched-paused-put", "sched-put-race", "sched-queue-pause", "sched-rearm", "sched-redelivery", "sched-replace", "sched-replace-previous", "sched-running", "sched-skip", "sched-trigger", "sched-undecodable", "sched-undecodable-batch", "sched-undecodable-blip", "sched-zone");

    private final RedisContext redis;
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();
    private final List<RedissonClient> extra = new ArrayList<>();

    ScheduleTest(RedisContext redis) {
        this.redis = redis;
    }

    RedisContext redis() {
        return redis;
    }

    /** The client of one application instance; subclasses partition the queues. */
    DelayQueueClient newClient() {
        return DelayQueueClient.create(redis.redisson(), ClientOptions.builder().keyPrefix(redis.prefix()).build());
    }

    @AfterEach
    void stop() {
        consumers.forEach(DelayQueueConsumer::stop);
        extra.forEach(RedissonClient::shutdown);
    }

    private DelayQueueConsumer consume(Schedules schedules, DelayQueueClient client, String queue, MessageHandler<String> handler) {
        ConsumerOptions options = ConsumerOptions.builder().concurrency(4).maxPollInterval(Duration.ofSeconds(1))
                .interceptors(List.of(schedules.interceptor())).build();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, handler, options);
        consumers.add(consumer);
        consumer.start();
        return consumer;
    }

    record Tick(String schedule, long tickMs, String instance) {
    }

    private static Tick tick(MessageContext context, String instance) {
        return new Tick(context.headers().get(Schedules.SCHEDULE_HEADER),
                Long.parseLong(context.headers().get(Schedules.TICK_HEADER)), instance);
    }

    @Test
    void everyTickInstantIsHandledOnceAcrossInstancesAndARestart() {
        String queue = "sched-instances";
        DelayQueueClient a = newClient();
        DelayQueueClient b = newClient();
        DelayQueueClient c = newClient();
        Schedules sa = Schedules.builder(a).build();
        Schedules sb = Schedules.builder(b).build();
        Schedules sc = Schedules.builder(c).build();
        List<Tick> ticks = new CopyOnWriteArrayList<>();
        // fire-all: a tick claimed more than a period late (a loaded machine) must not make the next one count as missed
        sa.put(ScheduleSpec.every(queue, "beat", Duration.ofMillis(200)).payloadJson("\"x\"").misfire(Misfire.FIRE_ALL)
                .catchUpLimit(ScheduleSpec.MAX_CATCH_UP).build());
        DelayQueueConsumer first = consume(sa, a, queue, (p, ctx) -> ticks.add(tick(ctx, "a")));
        consume(sb, b, queue, (p, ctx) -> ticks.add(tick(ctx, "b")));
        await().atMost(DEADLINE).until(() -> ticks.size() >= 5);
        first.stop(); // an instance goes away; another starts
        int before = ticks.size();
        consume(sc, c, queue, (p, ctx) -> ticks.add(tick(ctx, "c")));
        await().atMost(DEADLINE).until(() -> ticks.size() >= before + 5);
        sa.remove(queue, "beat");
        List<Long> instants = ticks.stream().map(Tick::tickMs).sorted().toList();
        assertThat(instants).doesNotHaveDuplicates();
        for (int i = 1; i < instants.size(); i++) {
            assertThat(instants.get(i) - instants.get(i - 1)).as("no tick left out between handled ones").isEqualTo(200);
        }
        assertThat(instants).allSatisfy(ms -> assertThat(ms % 200).isZero());
    }

    @Test
    void aLateRedeliveryOfAnOlderTickWritesNothing() throws Exception {
        String queue = "sched-redelivery";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "hourly", Duration.ofHours(1)).payloadJson("\"x\"").build());
        ScheduleInfo info = schedules.get(queue, "hourly").orElseThrow();
        Instant t0 = info.nextTickAt();
        QueuedMessage m0 = onlyPending(client, queue);
        assertThat(m0.dueAt()).isEqualTo(t0);
        assertThat(claim(schedules, m0)).as("the handler runs").isTrue();
        // tick 1 is written; it is claimed, handled and acknowledged (gone from Redis, its id free again)
        QueuedMessage m1 = onlyPending(client, queue);
        assertThat(m1.dueAt()).isEqualTo(t0.plus(Duration.ofHours(1)));
        assertThat(claim(schedules, m1)).isTrue();
        QueuedMessage m2 = onlyPending(client, queue);
        // now tick 0 is delivered again (its lease expired, say): it runs, and must not write tick 1 again
        assertThat(claim(schedules, m0)).isTrue();
        assertThat(client.message(queue, m1.id())).isEmpty();
        assertThat(onlyPending(client, queue).id()).isEqualTo(m2.id());
        assertThat(schedules.get(queue, "hourly").orElseThrow().nextTickAt()).isEqualTo(m2.dueAt());
    }

    /**
     * The interceptor on one claimed tick, as a consumer runs it, then the tick acknowledged (deleted); true if the
     * handler ran.
     */
    private boolean claim(Schedules schedules, QueuedMessage message) throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        MessageContext context = new MessageContext(QUEUE_OF.get(message.id()), message.id(), 1,
                message.dueAt() == null ? Instant.EPOCH : message.dueAt(), message.enqueuedAt(), message.headers());
        schedules.interceptor().aroundHandle(context, message.payload(), () -> ran.set(true));
        schedules.client().cancel(QUEUE_OF.get(message.id()), message.id());
        return ran.get();
    }

    /** The queue of each tick message read by {@link #onlyPending}, for the context of {@link #claim}. */
    private static final Map<String, String> QUEUE_OF = new ConcurrentHashMap<>();

    private static QueuedMessage onlyPending(DelayQueueClient client, String queue) {
        List<QueuedMessage> pending = client.pending(queue, 0, 10).messages();
        assertThat(pending).as("pending ticks").hasSize(1);
        QUEUE_OF.put(pending.get(0).id(), queue);
        return pending.get(0);
    }

    private static List<QueuedMessage> pending(DelayQueueClient client, String queue) {
        List<QueuedMessage> pending = client.pending(queue, 0, 100).messages();
        pending.forEach(m -> QUEUE_OF.put(m.id(), queue));
        return pending;
    }

    /** Waits until the Redis clock passes {@code instant} (the test's "outage"). */
    private static void waitPast(DelayQueueClient client, String queue, Instant instant) {
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(10))
                .until(() -> client.stats(queue).serverTime().isAfter(instant));
    }

    static final class Counting implements ScheduleListener {
        final AtomicLong missed = new AtomicLong();
        final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

        @Override
        public void tick(String queue, String schedule, Instant tick, Outcome outcome, Duration late) {
            outcomes.add(outcome);
        }

        @Override
        public void missed(String queue, String schedule, long count) {
            missed.addAndGet(count);
        }
    }

    @Test
    void fireOnceRunsTheLateTickAndGoesOnAfterNow() throws Exception {
        String queue = "sched-fire-once";
        DelayQueueClient client = newClient();
        Counting listener = new Counting();
        Schedules schedules = Schedules.builder(client).listener(listener).build();
        schedules.put(ScheduleSpec.every(queue, "fast", Duration.ofMillis(10)).payloadJson("\"x\"").build());
        QueuedMessage m0 = onlyPending(client, queue);
        waitPast(client, queue, m0.dueAt().plusMillis(100)); // no consumer for 100 ms: 10 ticks missed at least
        assertThat(claim(schedules, m0)).as("the one catch-up tick runs").isTrue();
        QueuedMessage next = onlyPending(client, queue);
        assertThat(next.dueAt()).isAfter(m0.dueAt().plusMillis(100));
        assertThat(listener.missed.get()).isGreaterThanOrEqualTo(10);
        assertThat(listener.outcomes).containsExactly(ScheduleListener.Outcome.FIRED);
    }

    @Test
    void skipLeavesTheLateTickOut() throws Exception {
        String queue = "sched-skip";
        DelayQueueClient client = newClient();
        Counting listener = new Counting();
        Schedules schedules = Schedules.builder(client).listener(listener).build();
        schedules.put(ScheduleSpec.every(queue, "fast", Duration.ofMillis(10)).payloadJson("\"x\"").misfire(Misfire.SKIP).build());
        QueuedMessage m0 = onlyPending(client, queue);
        waitPast(client, queue, m0.dueAt().plusMillis(100));
        assertThat(claim(schedules, m0)).as("the late tick is left out").isFalse();
        assertThat(onlyPending(client, queue).dueAt()).isAfter(m0.dueAt().plusMillis(100));
        assertThat(listener.missed.get()).isGreaterThanOrEqualTo(11);
        assertThat(listener.outcomes).containsExactly(ScheduleListener.Outcome.SKIPPED_MISFIRE);
        assertThat(schedules.get(queue, "fast").orElseThrow().lastTickAt()).as("no handler ran").isNull();
    }

    @Test
    void fireAllRunsEveryMissedTickUpToTheLimitThenGoesOnAfterNow() throws Exception {
        String queue = "sched-fire-all";
        DelayQueueClient client = newClient();
        Counting listener = new Counting();
        Schedules schedules = Schedules.builder(client).listener(listener).build();
        schedules.put(ScheduleSpec.every(queue, "fast", Duration.ofMillis(10)).payloadJson("\"x\"").misfire(Misfire.FIRE_ALL).catchUpLimit(3)
                .build());
        QueuedMessage m = onlyPending(client, queue);
        Instant first = m.dueAt();
        waitPast(client, queue, first.plusMillis(200));
        List<Instant> ran = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            assertThat(claim(schedules, m)).isTrue();
            ran.add(m.dueAt());
            m = onlyPending(client, queue);
        }
        assertThat(ran).containsExactly(first, first.plusMillis(10), first.plusMillis(20), first.plusMillis(30));
        assertThat(m.dueAt()).as("after 3 catch-up ticks, the next after now").isAfter(first.plusMillis(200));
        assertThat(listener.missed.get()).isGreaterThanOrEqualTo(16);
    }

    @Test
    void overlapSkipLeavesTicksOutWhileThePreviousOneRuns() {
        String queue = "sched-overlap";
        DelayQueueClient client = newClient();
        Counting listener = new Counting();
        Schedules schedules = Schedules.builder(client).listener(listener).build();
        schedules.put(ScheduleSpec.every(queue, "slow", Duration.ofMillis(100)).overlap(Overlap.SKIP)
                .payloadJson("\"x\"").build());
        CountDownLatch release = new CountDownLatch(1);
        List<Long> started = new CopyOnWriteArrayList<>();
        AtomicLong running = new AtomicLong();
        AtomicLong most = new AtomicLong();
        consume(schedules, client, queue, (p, ctx) -> {
            started.add(tick(ctx, "a").tickMs());
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                if (started.size() == 1) {
                    release.await(30, TimeUnit.SECONDS);
                }
            } finally {
                running.decrementAndGet();
            }
        });
        await().atMost(DEADLINE).until(() -> listener.outcomes.stream()
                .filter(o -> o == ScheduleListener.Outcome.SKIPPED_OVERLAP).count() >= 3);
        assertThat(started).hasSize(1);
        release.countDown();
        await().atMost(DEADLINE).until(() -> started.size() >= 3);
        assertThat(most.get()).isEqualTo(1);
        schedules.remove(queue, "slow");
    }

    @Test
    void pauseStopsTicksForEveryInstanceAndResumeGoesOn() {
        String queue = "sched-pause";
        DelayQueueClient a = newClient();
        DelayQueueClient b = newClient();
        Schedules sa = Schedules.builder(a).build();
        Schedules sb = Schedules.builder(b).build();
        List<Long> handled = new CopyOnWriteArrayList<>();
        sa.put(ScheduleSpec.every(queue, "beat", Duration.ofMillis(100)).payloadJson("\"x\"").build());
        consume(sa, a, queue, (p, ctx) -> handled.add(tick(ctx, "a").tickMs()));
        consume(sb, b, queue, (p, ctx) -> handled.add(tick(ctx, "b").tickMs()));
        await().atMost(DEADLINE).until(() -> handled.size() >= 2);
        assertThat(sb.pause(queue, "beat")).isTrue();
        assertThat(sa.pause(queue, "beat")).as("paused already").isFalse();
        assertThat(sa.get(queue, "beat").orElseThrow().paused()).isTrue();
        // a tick claimed just before the pause may still run; after that, none
        await().atMost(DEADLINE).until(() -> a.stats(queue).pending() + a.stats(queue).inFlight() == 0);
        int atPause = handled.size();
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(() -> handled.size() == atPause);
        assertThat(sa.resume(queue, "beat")).isTrue();
        await().atMost(DEADLINE).until(() -> handled.size() >= atPause + 3);
        assertThat(handled).doesNotHaveDuplicates();
        sa.remove(queue, "beat");
    }

    /** Pausing the queue holds its ticks with its other messages; on resume the held tick runs late, by the misfire policy. */
    @Test
    void aPausedQueueHoldsTicksAndTheSeriesGoesOnAfterItsResume() {
        String queue = "sched-queue-pause";
        DelayQueueClient client = newClient();
        Counting listener = new Counting();
        Schedules schedules = Schedules.builder(client).listener(listener).build();
        List<Long> handled = new CopyOnWriteArrayList<>();
        schedules.put(ScheduleSpec.every(queue, "q", Duration.ofMillis(100)).payloadJson("\"x\"").build());
        consume(schedules, client, queue, (p, ctx) -> handled.add(tick(ctx, "a").tickMs()));
        await().atMost(DEADLINE).until(() -> handled.size() >= 1);
        client.pause(queue);
        await().atMost(DEADLINE).until(() -> client.stats(queue).inFlight() == 0);
        int atPause = handled.size();
        Instant paused = client.stats(queue).serverTime();
        waitPast(client, queue, paused.plusMillis(500)); // five periods: the pending tick is held
        assertThat(handled).hasSize(atPause);
        client.resume(queue);
        await().atMost(DEADLINE).until(() -> handled.size() >= atPause + 2);
        assertThat(handled).doesNotHaveDuplicates();
        assertThat(listener.missed.get()).as("fire-once: the held tick runs, the ones after it are counted missed")
                .isGreaterThanOrEqualTo(3);
        schedules.remove(queue, "q");
    }

    @Test
    void aTickClaimedJustBeforeAPauseIsNotWrittenAgainByTheResume() {
        String queue = "sched-pause-race";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "beat", Duration.ofMillis(200)).payloadJson("\"x\"").build());
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch paused = new CountDownLatch(1);
        // runs before the schedule's interceptor: the first tick is claimed, then the schedule is paused, then it advances
        DeliveryInterceptor hold = new DeliveryInterceptor() {
            @Override
            public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
                claimed.countDown();
                paused.await(30, TimeUnit.SECONDS);
                invocation.proceed();
            }
        };
        List<Long> handled = new CopyOnWriteArrayList<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class,
                (String p, MessageContext ctx) -> handled.add(tick(ctx, "a").tickMs()),
                ConsumerOptions.builder().concurrency(1).interceptors(List.of(hold, schedules.interceptor())).build());
        consumers.add(consumer);
        consumer.start();
        try {
            assertThat(claimed.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(schedules.pause(queue, "beat")).isTrue();
        paused.countDown();
        await().atMost(DEADLINE).until(() -> handled.size() == 1);
        await().atMost(DEADLINE).until(() -> client.stats(queue).inFlight() == 0);
        assertThat(schedules.resume(queue, "beat")).isTrue();
        await().atMost(DEADLINE).until(() -> handled.size() >= 3);
        assertThat(handled).doesNotHaveDuplicates();
        schedules.remove(queue, "beat");
    }

    /**
     * A put that keeps the timing (another payload) computes the same first tick as the pending one; that tick is
     * claimed between the put's read and its script, and its advance reads the old version. The put must not leave
     * the series without a next tick. The tick function holds each side at the point of the race.
     */
    @Test
    void aPutRacingTheClaimOfItsFirstTickKeepsTheSeriesGoing() throws Exception {
        String queue = "sched-put-race";
        DelayQueueClient client = newClient();
        long period = 500;
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean putHeld = new AtomicBoolean();
        AtomicBoolean advanceHeld = new AtomicBoolean();
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch putDone = new CountDownLatch(1);
        TickFunction.Factory gated = (expression, zone) -> after -> {
            long next = (Math.floorDiv(after.toEpochMilli(), period) + 1) * period;
            try {
                if (armed.get() && after.toEpochMilli() % period != 0 && putHeld.compareAndSet(false, true)) {
                    claimed.await(30, TimeUnit.SECONDS); // the put: read done, script not run yet
                } else if (armed.get() && after.toEpochMilli() % period == 0 && advanceHeld.compareAndSet(false, true)) {
                    claimed.countDown(); // the claimed tick's interceptor: read done, advance not run yet
                    putDone.await(30, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Instant.ofEpochMilli(next);
        };
        Schedules schedules = Schedules.builder(client).kind("gated", gated).build();
        // just past a period boundary: the second put reads well before the first tick is due
        long nowMs = client.stats(queue).serverTime().toEpochMilli();
        waitPast(client, queue, Instant.ofEpochMilli((nowMs / period + 1) * period));
        schedules.put(ScheduleSpec.of(queue, "g", "gated", "500ms").payloadJson("\"v1\"").build());
        List<String> handled = new CopyOnWriteArrayList<>();
        consume(schedules, client, queue, (p, ctx) -> handled.add(p));
        armed.set(true);
        schedules.put(ScheduleSpec.of(queue, "g", "gated", "500ms").payloadJson("\"v2\"").build());
        putDone.countDown();
        assertThat(putHeld.get() && advanceHeld.get()).as("the race was set up").isTrue();
        await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() >= 2);
        assertThat(handled.get(handled.size() - 1)).isEqualTo("v2");
        schedules.remove(queue, "g");
    }

    /**
     * A tick whose payload the consumer cannot read (a payload changed by a deploy, a handler type changed) goes to
     * the dead letters, but the series goes on: the next tick is written from the tick's headers, before decoding.
     */
    @Test
    void aTickWhosePayloadDoesNotBindStillWritesTheNextTick() {
        undecodableTicksKeepTheSeries("sched-undecodable", false);
    }

    /** The same on a batch consumer: the batch path tells the interceptors of an undecodable tick as well. */
    @Test
    void aTickWhosePayloadDoesNotBindOnABatchConsumerStillWritesTheNextTick() {
        undecodableTicksKeepTheSeries("sched-undecodable-batch", true);
    }

    private void undecodableTicksKeepTheSeries(String queue, boolean batch) {
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "u", Duration.ofMillis(200)).payloadJson("{\"not\":\"a string\"}").build());
        List<String> handled = new CopyOnWriteArrayList<>();
        if (batch) {
            ConsumerOptions options = ConsumerOptions.builder().concurrency(2).maxPollInterval(Duration.ofSeconds(1))
                    .interceptors(List.of(schedules.interceptor())).build();
            DelayQueueConsumer consumer = client.newBatchConsumer(queue, String.class,
                    items -> items.forEach(item -> handled.add((String) item.payload())), BatchOptions.of(10), options);
            consumers.add(consumer);
            consumer.start();
        } else {
            consume(schedules, client, queue, (p, ctx) -> handled.add(p));
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> client.stats(queue).dead() >= 3);
        assertThat(handled).isEmpty();
        assertThat(schedules.get(queue, "u").orElseThrow().nextTickAt()).isNotNull();
        assertThat(schedules.get(queue, "u").orElseThrow().lastTickAt()).as("no handler ran").isNull();
        schedules.remove(queue, "u");
    }

    /**
     * A failure while writing the next tick of an undecodable one (Redis unreachable for a moment) fails the delivery,
     * which is retried, instead of dead-lettering the tick with the series ended: the retry writes the next tick.
     */
    @Test
    void aFailedWriteOfTheNextTickOfAnUndecodableTickIsRetried() {
        String queue = "sched-undecodable-blip";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "u", Duration.ofHours(1)).payloadJson("{\"not\":\"a string\"}").build());
        DeliveryInterceptor real = schedules.interceptor();
        AtomicBoolean failed = new AtomicBoolean();
        DeliveryInterceptor blip = new DeliveryInterceptor() { // Redis fails the first write of the next tick
            @Override
            public void undecodable(MessageContext context) {
                if (failed.compareAndSet(false, true)) {
                    throw new org.redisson.client.RedisException("Redis went away for a moment");
                }
                real.undecodable(context);
            }
        };
        QueuedMessage first = onlyPending(client, queue);
        client.reschedule(queue, first.id(), Duration.ZERO); // due now: the hour's tick, run early by hand
        ConsumerOptions options = ConsumerOptions.builder().maxPollInterval(Duration.ofSeconds(1))
                .retry(new io.github.delayqueue.core.RetryPolicy(3, Duration.ofMillis(50), 1.0, Duration.ofMillis(50), 0.0))
                .interceptors(List.of(blip)).build();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (p, ctx) -> { }, options);
        consumers.add(consumer);
        consumer.start();
        await().atMost(DEADLINE).until(() -> client.stats(queue).dead() == 1);
        assertThat(failed).isTrue();
        assertThat(client.deadLetters(queue, 10).get(0).attempts()).as("retried once after the failed write").isEqualTo(2);
        ScheduleInfo info = schedules.get(queue, "u").orElseThrow();
        assertThat(info.nextTickAt()).as("the series goes on").isEqualTo(first.dueAt().plus(Duration.ofHours(1)));
        assertThat(onlyPending(client, queue).dueAt()).isEqualTo(info.nextTickAt());
        schedules.remove(queue, "u");
    }

    /** A replace goes on from now: the kind is told the latest tick that ran (cron keeps a wall-clock time once). */
    @Test
    void aReplaceTellsTheTickFunctionTheLatestTickThatRan() throws Exception {
        String queue = "sched-replace-previous";
        DelayQueueClient client = newClient();
        List<String> previous = new CopyOnWriteArrayList<>();
        TickFunction.Factory recording = (expression, zone) -> new TickFunction() {
            @Override
            public Instant next(Instant after) {
                return Instant.ofEpochMilli((Math.floorDiv(after.toEpochMilli(), 3_600_000) + 1) * 3_600_000);
            }

            @Override
            public Instant next(Instant after, Instant ran) {
                previous.add(String.valueOf(ran));
                return next(after);
            }
        };
        Schedules schedules = Schedules.builder(client).kind("recording", recording).build();
        schedules.put(ScheduleSpec.of(queue, "p", "recording", "1h").payloadJson("1").build());
        QueuedMessage first = onlyPending(client, queue);
        assertThat(claim(schedules, first)).isTrue();
        schedules.put(ScheduleSpec.of(queue, "p", "recording", "1h").payloadJson("2").build());
        assertThat(previous).containsExactly("null", first.dueAt().toString());
        schedules.remove(queue, "p");
    }

    /** The API's default zone is the yaml's ("UTC", not "Z"): the same spec both ways is the same definition. */
    @Test
    void theDefaultZoneIsUtcAsInYaml() {
        String queue = "sched-zone";
        Schedules schedules = Schedules.builder(newClient()).build();
        ScheduleSpec api = ScheduleSpec.every(queue, "z", Duration.ofHours(1)).payloadJson("1").build();
        assertThat(api.zone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(schedules.declare(ScheduleSpec.every(queue, "z", Duration.ofHours(1)).zone(ZoneId.of("UTC"))
                .payloadJson("1").build())).isEqualTo(Schedules.Outcome.CREATED);
        assertThat(schedules.put(api)).isEqualTo(Schedules.Outcome.UNCHANGED);
        assertThat(schedules.get(queue, "z").orElseThrow().spec().zone().getId()).isEqualTo("UTC");
        schedules.remove(queue, "z");
    }

    /**
     * A tick claimed before its schedule is replaced or removed finishes (its handler runs, told as redelivered: the
     * series moved on without it); the replaced series goes on with the new spec only, the removed one stops.
     */
    @Test
    void aTickAlreadyRunningFinishesWhenItsScheduleIsReplacedOrRemoved() throws Exception {
        String queue = "sched-running";
        DelayQueueClient client = newClient();
        Counting listener = new Counting();
        Schedules schedules = Schedules.builder(client).listener(listener).build();
        java.util.concurrent.BlockingQueue<String> claimedIds = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.concurrent.Semaphore release = new java.util.concurrent.Semaphore(0);
        DeliveryInterceptor hold = new DeliveryInterceptor() { // runs before the schedule's interceptor
            @Override
            public void aroundHandle(MessageContext context, Object payload, Invocation invocation) throws Exception {
                claimedIds.add(context.id());
                release.tryAcquire(30, TimeUnit.SECONDS);
                invocation.proceed();
            }
        };
        List<String> handled = new CopyOnWriteArrayList<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (String p, MessageContext ctx) -> handled.add(p),
                ConsumerOptions.builder().concurrency(2).interceptors(List.of(hold, schedules.interceptor())).build());
        consumers.add(consumer);
        consumer.start();
        schedules.put(ScheduleSpec.every(queue, "r", Duration.ofMillis(200)).payloadJson("\"v1\"").build());
        assertThat(claimedIds.poll(30, TimeUnit.SECONDS)).startsWith("r@");
        assertThat(schedules.put(ScheduleSpec.every(queue, "r", Duration.ofHours(1)).payloadJson("\"v2\"").build()))
                .isEqualTo(Schedules.Outcome.REPLACED);
        release.release();
        await().atMost(DEADLINE).until(() -> handled.size() == 1 && client.stats(queue).inFlight() == 0);
        assertThat(handled).containsExactly("v1");
        List<QueuedMessage> left = pending(client, queue);
        assertThat(left).hasSize(1);
        assertThat(left.get(0).payload()).isEqualTo("\"v2\"");
        assertThat(left.get(0).dueAt().toEpochMilli() % Duration.ofHours(1).toMillis()).isZero();

        schedules.put(ScheduleSpec.every(queue, "s", Duration.ofMillis(200)).payloadJson("\"s\"").build());
        assertThat(claimedIds.poll(30, TimeUnit.SECONDS)).startsWith("s@");
        assertThat(schedules.remove(queue, "s")).isTrue();
        release.release();
        await().atMost(DEADLINE).until(() -> handled.size() == 2 && client.stats(queue).inFlight() == 0);
        assertThat(handled).containsExactly("v1", "s");
        assertThat(pending(client, queue)).extracting(QueuedMessage::id).containsExactly(left.get(0).id());
        assertThat(schedules.get(queue, "s")).isEmpty();
        assertThat(listener.outcomes).containsExactly(ScheduleListener.Outcome.REDELIVERED,
                ScheduleListener.Outcome.REDELIVERED);
        schedules.remove(queue, "r");
    }

    /** A put on a paused schedule replaces its definition and keeps it paused: no tick is written until resume. */
    @Test
    void aPausedScheduleStaysPausedWhenItIsReplaced() {
        String queue = "sched-paused-put";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "p", Duration.ofHours(1)).payloadJson("1").build());
        assertThat(schedules.pause(queue, "p")).isTrue();
        assertThat(schedules.put(ScheduleSpec.every(queue, "p", Duration.ofHours(2)).payloadJson("2").build()))
                .isEqualTo(Schedules.Outcome.REPLACED);
        assertThat(schedules.get(queue, "p").orElseThrow().paused()).isTrue();
        assertThat(pending(client, queue)).isEmpty();
        assertThat(schedules.resume(queue, "p")).isTrue();
        assertThat(onlyPending(client, queue).payload()).isEqualTo("2");
        schedules.remove(queue, "p");
    }

    @Test
    void replacingMovesThePendingTickAndRemovingDeletesIt() {
        String queue = "sched-replace";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        assertThat(schedules.put(ScheduleSpec.every(queue, "r", Duration.ofHours(1)).payloadJson("1").build()))
                .isEqualTo(Schedules.Outcome.CREATED);
        assertThat(schedules.put(ScheduleSpec.every(queue, "r", Duration.ofHours(1)).payloadJson("1").build()))
                .isEqualTo(Schedules.Outcome.UNCHANGED);
        QueuedMessage before = onlyPending(client, queue);
        assertThat(schedules.put(ScheduleSpec.every(queue, "r", Duration.ofHours(2)).payloadJson("2").build()))
                .isEqualTo(Schedules.Outcome.REPLACED);
        QueuedMessage after = onlyPending(client, queue);
        assertThat(after.payload()).isEqualTo("2");
        assertThat(after.dueAt().toEpochMilli() % Duration.ofHours(2).toMillis()).isZero();
        assertThat(schedules.get(queue, "r").orElseThrow().spec().expression()).isEqualTo("PT2H");
        assertThat(client.message(queue, before.id()).isEmpty() || before.id().equals(after.id())).isTrue();
        assertThat(schedules.remove(queue, "r")).isTrue();
        assertThat(schedules.remove(queue, "r")).isFalse();
        assertThat(pending(client, queue)).isEmpty();
        assertThat(schedules.get(queue, "r")).isEmpty();
    }

    @Test
    void aDeclarationDoesNotBringBackASpecThatWasReplaced() {
        String queue = "sched-declare";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        ScheduleSpec v1 = ScheduleSpec.every(queue, "d", Duration.ofHours(1)).payloadJson("\"x\"").build();
        ScheduleSpec v2 = ScheduleSpec.every(queue, "d", Duration.ofHours(2)).payloadJson("\"x\"").build();
        assertThat(schedules.declare(v1)).isEqualTo(Schedules.Outcome.CREATED);
        assertThat(schedules.declare(v2)).isEqualTo(Schedules.Outcome.REPLACED);
        assertThat(schedules.declare(v1)).as("an old instance starting again").isEqualTo(Schedules.Outcome.KEPT_NEWER);
        assertThat(schedules.get(queue, "d").orElseThrow().spec().expression()).isEqualTo("PT2H");
        assertThat(schedules.put(v1)).as("an explicit put wins").isEqualTo(Schedules.Outcome.REPLACED);
        assertThat(schedules.declare(v2)).isEqualTo(Schedules.Outcome.KEPT_NEWER);
        assertThat(schedules.get(queue, "d").orElseThrow().declared()).isFalse();
    }

    @Test
    void rearmWritesALostTickAgainAndLeavesAnIntactSeriesAlone() {
        String queue = "sched-rearm";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "r", Duration.ofHours(1)).payloadJson("\"x\"").build());
        QueuedMessage tick = onlyPending(client, queue);
        assertThat(schedules.rearm(queue, "r")).as("nothing lost").isFalse();
        assertThat(client.cancel(queue, tick.id())).isTrue(); // deleted by hand: the series would stop here
        assertThat(schedules.rearm(queue, "r")).isTrue();
        QueuedMessage again = onlyPending(client, queue);
        assertThat(again.id()).isEqualTo(tick.id());
        assertThat(again.dueAt()).isEqualTo(tick.dueAt());
        assertThat(schedules.pause(queue, "r")).isTrue();
        assertThat(schedules.rearm(queue, "r")).as("a paused schedule is not re-armed").isFalse();
        assertThat(pending(client, queue)).isEmpty();
    }

    @Test
    void triggerRunsOneTickOutsideTheSeries() {
        String queue = "sched-trigger";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "t", Duration.ofHours(1)).payloadJson("\"p\"").build());
        Instant next = schedules.get(queue, "t").orElseThrow().nextTickAt();
        List<String> handled = new CopyOnWriteArrayList<>();
        consume(schedules, client, queue, (p, ctx) -> handled.add(p + ":" + ctx.headers().get(Schedules.TICK_HEADER)));
        String id = schedules.trigger(queue, "t");
        assertThat(id).startsWith("t@m");
        await().atMost(DEADLINE).until(() -> handled.size() == 1);
        assertThat(handled).containsExactly("p:manual");
        assertThat(schedules.get(queue, "t").orElseThrow().nextTickAt()).isEqualTo(next);
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.trigger(queue, "none")).withMessageContaining("no schedule");
    }

    @Test
    void listPagesAQueuesSchedulesInNextTickOrder() {
        String queue = "sched-list";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        for (int i = 1; i <= 5; i++) {
            schedules.put(ScheduleSpec.every(queue, "s" + i, Duration.ofHours(i)).payloadJson("\"x\"").build());
        }
        SchedulePage page = schedules.list(queue, 1, 2);
        assertThat(page.total()).isEqualTo(5);
        assertThat(page.schedules()).hasSize(2);
        List<ScheduleInfo> all = schedules.list(queue, 0, 10).schedules();
        assertThat(all).hasSize(5);
        assertThat(all).isSortedAccordingTo((x, y) -> x.nextTickAt().compareTo(y.nextTickAt()));
        assertThat(page.schedules()).containsExactly(all.get(1), all.get(2));
    }

    @Test
    void badInputIsRefusedAndNothingIsWritten() {
        String queue = "sched-bad";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleSpec.every(queue, "x", Duration.ZERO))
                .withMessageContaining("positive");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleSpec.every(queue, "a|b", Duration.ofSeconds(1)))
                .withMessageContaining("schedule id");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleSpec.every("bad queue", "x", Duration.ofSeconds(1)))
                .withMessageContaining("queue name");
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.put(ScheduleSpec.cron(queue, "x", "0 * * * * *").build()))
                .withMessageContaining("unknown schedule kind 'cron'");
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.put(ScheduleSpec.of(queue, "x", "every", "soon").build()))
                .withMessageContaining("ISO-8601");
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.put(ScheduleSpec.every(queue, "x", Duration.ofSeconds(1))
                .payloadJson("{not json").build())).withMessageContaining("not JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.list(queue, 0, 0)).withMessageContaining("limit");
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.pause(queue, "none")).withMessageContaining("no schedule");
        // only the partition count, which every client records at its first use of a queue
        assertThat(redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":*" + queue + "*").toList())
                .allSatisfy(key -> assertThat(key).endsWith(":partitions"));
    }

    /**
     * The engine sends a JSON null payload to the dead letters before any interceptor runs (a handler never sees
     * null), so a schedule without a payload would stop after its first tick: it is refused, nothing written.
     */
    @Test
    void aScheduleWithoutAPayloadIsRefused() {
        String queue = "sched-no-payload";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.put(ScheduleSpec.every(queue, "n", Duration.ofSeconds(1)).build()))
                .withMessageContaining("no payload");
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.put(ScheduleSpec.every(queue, "n", Duration.ofSeconds(1))
                .payload(null).build())).withMessageContaining("no payload");
        assertThatIllegalArgumentException().isThrownBy(() -> schedules.declare(ScheduleSpec.every(queue, "n", Duration.ofSeconds(1))
                .payloadJson(" null ").build())).withMessageContaining("no payload");
        assertThat(redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":*" + queue + "*").toList())
                .allSatisfy(key -> assertThat(key).endsWith(":partitions"));
    }

    /** A schedule is a hash entry and a pending message: many of them start no thread and no timer in the JVM. */
    @Test
    void manySchedulesCostNoThreadInTheJvm() {
        String queue = "sched-many";
        DelayQueueClient client = newClient();
        Schedules schedules = Schedules.builder(client).build();
        schedules.put(ScheduleSpec.every(queue, "warm-up", Duration.ofHours(1)).payloadJson("\"x\"").build()); // scripts loaded, connections up
        int threads = Thread.activeCount();
        for (int i = 0; i < 200; i++) {
            schedules.put(ScheduleSpec.every(queue, "customer:" + i, Duration.ofHours(1 + i % 24)).payloadJson("\"x\"").build());
        }
        assertThat(schedules.list(queue, 0, 1).total()).isEqualTo(201);
        assertThat(client.stats(queue).pending()).isEqualTo(201);
        assertThat(Thread.activeCount()).isLessThanOrEqualTo(threads + 2); // Redisson may grow its pool by a thread
    }

    @Test
    void fixedRateTicksAreWholeMultiplesOfThePeriodSinceTheEpoch() {
        TickFunction every = FixedRate.FACTORY.create("PT30S", ZoneId.of("UTC"));
        assertThat(every.next(Instant.parse("2026-03-29T01:59:45Z"))).isEqualTo(Instant.parse("2026-03-29T02:00:00Z"));
        assertThat(every.next(Instant.parse("2026-03-29T02:00:00Z"))).isEqualTo(Instant.parse("2026-03-29T02:00:30Z"));
    }
}
