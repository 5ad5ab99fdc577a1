package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.activity.ActivityMinute;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueuedMessage;
import io.github.delayqueue.core.RetryPolicy;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.SlowDownException;
import io.github.delayqueue.core.GroupStats;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.history.HistoryPage;
import io.github.delayqueue.core.history.MessageStatus;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.core.history.SettledMessage;
import io.github.delayqueue.testing.RedisProcesses;
import io.github.delayqueue.testing.TestRedis;

/**
 * A Redis ACL user without channel permissions (Redis 7's default {@code acl-pubsub-default resetchannels}):
 * wake-ups cannot be published or subscribed to, and nothing else may fail because of it.
 */
class RestrictedAclTest {

    private static final String USER = "dq-acl-" + UUID.randomUUID().toString().substring(0, 8);
    static final String PASSWORD = "pw-" + UUID.randomUUID();

    private static RedissonClient redisson;
    private static DelayQueueClient client;

    @BeforeAll
    static void createUser() throws IOException {
        // the smallest rule set docs/internals/redis-layout.md names, with no channel at all
        command("ACL", "SETUSER", USER, "reset", "on", ">" + PASSWORD, "~*", "resetchannels", "+@all");
        redisson = newClient(USER);
        client = DelayQueueClient.create(redisson, ClientOptions.builder().keyPrefix(TestRedis.uniquePrefix()).build());
    }

    @AfterAll
    static void dropUser() throws IOException {
        try {
            if (redisson != null) {
                redisson.getKeys().unlinkByPattern(client.options().keyPrefix() + ":*");
                redisson.shutdown();
            }
        } finally {
            command("ACL", "DELUSER", USER);
        }
    }

    @Test
    void sendsRetriesReschedulesAndRequeuesSucceedWithoutChannelPermission() {
        String queue = "acl-writes";
        assertThat(client.send(queue, "a", Duration.ZERO, SendOptions.id("a"))).isEqualTo("a");
        assertThat(client.sendAll(queue, List.of(
                SendRequest.of("b", Duration.ofHours(1), SendOptions.id("b"))))).hasSize(1);
        assertThat(client.reschedule(queue, "b", Duration.ofMinutes(1))).isTrue();
        assertThat(client.stats(queue).pending()).isEqualTo(2);

        AtomicInteger calls = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> {
            calls.incrementAndGet();
            throw new IllegalStateException("always fails");
        }, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100))
                .retry(new RetryPolicy(2, Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0))
                .build());
        consumer.start();
        try {
            // attempt 1 fails: a retry (settle publishes a wake-up); attempt 2 fails: a dead letter
            await().atMost(Duration.ofSeconds(10)).until(() -> client.stats(queue).dead() == 1);
            assertThat(calls.get()).isEqualTo(2);
            assertThat(client.requeueDeadLetters(queue, List.of(client.deadLetters(queue, 1).get(0).key()))).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 3);
        } finally {
            consumer.stop();
        }
    }

    @Test
    void aConsumerWhoseSubscriptionIsDeniedPollsAndSaysSoOnce() {
        String queue = "acl-consumer";
        Logger logger = (Logger) LoggerFactory.getLogger(DelayQueueConsumer.class);
        Level level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        AtomicInteger delivered = new AtomicInteger();
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (p, c) -> delivered.incrementAndGet(),
                ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(50)).build());
        try {
            consumer.start();
            for (int i = 0; i < 5; i++) {
                client.send(queue, "m" + i, Duration.ofMillis(20));
                int expected = i + 1;
                await().atMost(Duration.ofSeconds(5)).until(() -> delivered.get() == expected);
            }
            // the subscription is tried again with a back-off and denied again: said once at WARN
            await().atMost(Duration.ofSeconds(20)).until(() -> wakeUpLines(appender, Level.DEBUG, queue).stream()
                    .anyMatch(m -> m.contains("failed again")));
            List<String> warned = wakeUpLines(appender, Level.WARN, queue);
            assertThat(warned).hasSize(1);
            assertThat(warned.get(0)).contains(queue).contains("polling every");
        } finally {
            consumer.stop();
            logger.detachAppender(appender);
            logger.setLevel(level);
        }
    }

    private static List<String> wakeUpLines(ListAppender<ILoggingEvent> appender, Level level, String queue) {
        return List.copyOf(appender.list).stream().filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("wake-up") && m.contains("'" + queue + "'")).toList();
    }

    /**
     * The rule set docs/internals/redis-layout.md gives as the smallest that works: the prefix's keys and channels,
     * and the commands the client and the scripts run. A send, a delivery woken by pub/sub (the poll is an
     * hour), a retry, a dead letter, stats, cancel, reschedule, pause and resume all work under it.
     */
    @Test
    void theDocumentedSmallestRuleSetIsEnough() throws IOException {
        String user = USER + "-min";
        String prefix = TestRedis.uniquePrefix();
        command(minimalRules(user, prefix));
        RedissonClient minimal = newClient(user);
        try {
            DelayQueueClient restricted = DelayQueueClient.create(minimal,
                    ClientOptions.builder().keyPrefix(prefix).build());
            String queue = "acl-minimal";
            AtomicInteger calls = new AtomicInteger();
            DelayQueueConsumer consumer = restricted.newConsumer(queue, String.class, (payload, context) -> {
                if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("first attempt fails");
                }
            }, ConsumerOptions.builder().maxPollInterval(Duration.ofHours(1))
                    .retry(new RetryPolicy(3, Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0)).build());
            consumer.start();
            try {
                // the turns at checking idle queues work under the rule set too: the instance registers (watch.lua)
                await("registered for the turns").atMost(Duration.ofSeconds(10)).until(() -> redisson
                        .getScoredSortedSet(prefix + ":{~watch}:instances", StringCodec.INSTANCE).size() == 1);
                // the first claim (at start) finds nothing and sleeps for an hour: only a wake-up delivers these. Sent
                // before that claim, x would be its next due time and delivered without one; sent before the SUBSCRIBE,
                // its wake-up would be missed: wait until the consumer listens and its poller sleeps
                String channel = prefix + ":{" + queue + "}:wake";
                // (the consumer's listeners: its wake-up listener, then the watcher of its re-subscriptions)
                await("the consumer subscribed to " + channel).atMost(Duration.ofSeconds(10))
                        .until(() -> minimal.getTopic(channel, StringCodec.INSTANCE).countListeners() >= 1
                                && subscribers(channel) == 1);
                await("the poller asleep in its hour-long wait").atMost(Duration.ofSeconds(10))
                        .until(() -> pollerAsleep(queue));
                restricted.send(queue, "x", Duration.ofMillis(50), SendOptions.id("x"));
                await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 2);
                await().atMost(Duration.ofSeconds(5)).until(() -> restricted.stats(queue).pending() == 0);
                restricted.send(queue, "y", Duration.ofHours(1), SendOptions.id("y"));
                assertThat(restricted.reschedule(queue, "y", Duration.ofHours(2))).isTrue();
                assertThat(restricted.cancel(queue, "y")).isTrue();
                assertThat(restricted.deadLetters(queue, 10)).isEmpty();
                // pause and resume: the resume's wake-up (not the hour-long poll) delivers what the pause held
                restricted.pause(queue);
                assertThat(restricted.isPaused(queue)).isTrue();
                restricted.send(queue, "z", Duration.ZERO, SendOptions.id("z"));
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 2);
                restricted.resume(queue);
                await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 3);
            } finally {
                consumer.stop();
            }
            // the stop of the client's last consumer flushed its activity counts (activity.lua: HINCRBY, PEXPIRE)
            List<ActivityMinute> activity = restricted.activity(queue);
            assertThat(activity.stream().mapToLong(ActivityMinute::handled).sum())
                    .isEqualTo(2);
            assertThat(activity.stream().mapToLong(ActivityMinute::retried).sum())
                    .isEqualTo(1);
            // the starter's replica settings (wait for 1, not required): the rule set has no +wait, so the probe is
            // denied, sends never wait, and none fails (issue 31 item 9)
            DelayQueueClient waiting = DelayQueueClient.create(minimal, ClientOptions.builder().keyPrefix(prefix)
                    .waitForReplicas(1, Duration.ofMillis(250)).replicasRequired(false).build());
            Logger clientLog = (Logger) LoggerFactory.getLogger(DelayQueueClient.class);
            ListAppender<ILoggingEvent> warnings = new ListAppender<>();
            warnings.start();
            clientLog.addAppender(warnings);
            try {
                waiting.send("acl-wait", "w", Duration.ofHours(1), SendOptions.id("w-0")); // starts the probe
                await("the denied probe said so").atMost(Duration.ofSeconds(10)).until(() -> List.copyOf(warnings.list)
                        .stream().anyMatch(e -> e.getFormattedMessage().contains("the Redis ACL denies WAIT")));
                waiting.send("acl-wait", "w", Duration.ofHours(1), SendOptions.id("w-1"));
                waiting.sendAll("acl-wait", List.of(SendRequest.of("b", Duration.ofHours(1), SendOptions.id("b-1"))));
            } finally {
                clientLog.detachAppender(warnings);
            }
            assertThat(waiting.stats("acl-wait").pending()).isEqualTo(3);
            redisson.getKeys().unlinkByPattern(prefix + ":*"); // SCAN: the test's cleanup, not the library's
        } finally {
            minimal.shutdown();
            command("ACL", "DELUSER", user);
        }
    }

    /**
     * Issue 36, as docs/internals/redis-layout.md says: sends with a dedup window need {@code +set +exists} beyond the smallest
     * rule set; without them an if-absent send with a window fails (nothing written), and the acknowledgement of a
     * replace-mode send with a window is applied without remembering its id.
     */
    @Test
    void dedupWindowsNeedSetAndExists() throws IOException {
        String user = USER + "-dedup";
        String prefix = TestRedis.uniquePrefix();
        String[] rules = minimalRules(user, prefix);
        command(withSetAndExists(rules));
        RedissonClient restricted = newClient(user);
        String queue = "acl-dedup";
        Duration day = Duration.ofDays(1);
        try {
            DelayQueueClient dedup = DelayQueueClient.create(restricted, ClientOptions.builder().keyPrefix(prefix).build());
            dedup.send(queue, "a", Duration.ZERO, SendOptions.id("once").withDedupWindow(day));
            drain(dedup, queue);
            dedup.send(queue, "b", Duration.ZERO, SendOptions.id("once").withDedupWindow(day));
            assertThat(dedup.message(queue, "once")).as("remembered").isEmpty();

            command(rules); // the smallest rule set: no SET, no EXISTS
            assertThatThrownBy(() -> dedup.send(queue, "c", Duration.ZERO, SendOptions.id("other").withDedupWindow(day)))
                    .isInstanceOf(DelayQueueException.class);
            assertThat(dedup.message(queue, "other")).isEmpty();
            dedup.send(queue, "d", Duration.ZERO, SendOptions.id("replaced").replaceExisting().withDedupWindow(day));
            drain(dedup, queue);
            assertThat(redisson.getBucket(prefix + ":{" + queue + "}:remembered:replaced").isExists()).isFalse();
            redisson.getKeys().unlinkByPattern(prefix + ":*");
        } finally {
            restricted.shutdown();
            command("ACL", "DELUSER", user);
        }
    }

    /**
     * Grouped messages (SendOptions.group) need nothing beyond the documented rule set: sends, claims under group
     * limits, a retry, a group's slow-down hold, reschedule, cancel, stats and the groups read.
     */
    @Test
    void groupsNeedNothingBeyondTheSmallestRuleSet() throws IOException {
        String user = USER + "-groups";
        String prefix = TestRedis.uniquePrefix();
        command(minimalRules(user, prefix));
        RedissonClient minimal = newClient(user);
        try {
            DelayQueueClient restricted = DelayQueueClient.create(minimal, ClientOptions.builder().keyPrefix(prefix).build());
            String queue = "acl-groups";
            restricted.send(queue, "later", Duration.ofHours(1), SendOptions.id("later").group("G"));
            assertThat(restricted.reschedule(queue, "later", Duration.ofHours(2))).isTrue();
            assertThat(restricted.groups(queue, 10)).extracting(GroupStats::group).containsExactly("G");
            assertThat(restricted.cancel(queue, "later")).isTrue();
            AtomicInteger calls = new AtomicInteger();
            DelayQueueConsumer consumer = restricted.newConsumer(queue, String.class, (payload, context) -> {
                int call = calls.incrementAndGet();
                if (call == 1) {
                    throw new IllegalStateException("first attempt fails");
                }
                if (call == 2) {
                    throw new SlowDownException(Duration.ofMillis(50));
                }
            }, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100)).groupMaxInFlight(1)
                    .groupRateLimit(RateLimit.parse("100/1s"))
                    .retry(new RetryPolicy(3, Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0)).build());
            consumer.start();
            try {
                restricted.send(queue, "x", Duration.ZERO, SendOptions.id("x").group("G"));
                restricted.send(queue, "y", Duration.ZERO, SendOptions.id("y").group("H"));
                await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 4
                        && restricted.stats(queue).pending() == 0 && restricted.stats(queue).inFlight() == 0);
            } finally {
                consumer.stop();
            }
        } finally {
            minimal.shutdown();
            command("ACL", "DELUSER", user);
        }
    }

    /**
     * Priorities need nothing beyond the documented rule set: a prioritized message due later (the claim then finds
     * its priority's set with nothing due), reschedule, cancel, stats and pages, a retry back to its priority, a
     * plain message claimed after the prioritized ones are gone (the claim that takes the markers out).
     */
    @Test
    void prioritiesNeedNothingBeyondTheSmallestRuleSet() throws IOException {
        String user = USER + "-priorities";
        String prefix = TestRedis.uniquePrefix();
        command(minimalRules(user, prefix));
        RedissonClient minimal = newClient(user);
        try {
            DelayQueueClient restricted = DelayQueueClient.create(minimal, ClientOptions.builder().keyPrefix(prefix).build());
            String queue = "acl-priorities";
            restricted.send(queue, "later", Duration.ofHours(1), SendOptions.id("later").priority(8));
            assertThat(restricted.reschedule(queue, "later", Duration.ofHours(2))).isTrue();
            assertThat(restricted.pending(queue, 0, 10).messages()).extracting(QueuedMessage::priority).containsExactly(8);
            assertThat(restricted.stats(queue).pending()).isEqualTo(1);
            AtomicInteger calls = new AtomicInteger();
            List<String> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
            DelayQueueConsumer consumer = restricted.newConsumer(queue, String.class, (payload, context) -> {
                if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("first attempt fails");
                }
                handled.add(payload);
            }, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100))
                    .retry(new RetryPolicy(3, Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0)).build());
            consumer.start();
            try {
                restricted.send(queue, "x", Duration.ZERO, SendOptions.id("x").priority(9));
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("x"));
                assertThat(restricted.cancel(queue, "later")).isTrue();
                restricted.send(queue, "plain", Duration.ZERO, SendOptions.id("plain"));
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("plain")
                        && restricted.stats(queue).pending() == 0 && restricted.stats(queue).inFlight() == 0);
            } finally {
                consumer.stop();
            }
        } finally {
            minimal.shutdown();
            command("ACL", "DELUSER", user);
        }
    }

    /**
     * A queue that keeps its history needs nothing beyond the documented rule set: the settle writes and trims the
     * records, and status and the history page read them (ZRANGE with REV, HMGET).
     */
    @Test
    void theHistoryNeedsNothingBeyondTheSmallestRuleSet() throws IOException {
        String user = USER + "-history";
        String prefix = TestRedis.uniquePrefix();
        command(minimalRules(user, prefix));
        RedissonClient minimal = newClient(user);
        try {
            DelayQueueClient restricted = DelayQueueClient.create(minimal, ClientOptions.builder().keyPrefix(prefix).build());
            String queue = "acl-history";
            DelayQueueConsumer consumer = restricted.newConsumer(queue, String.class, (payload, context) -> {
                if (payload.equals("bad")) {
                    throw new IllegalStateException("fails");
                }
            }, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100)).keepHistory(Duration.ofHours(1), 1)
                    .retry(new RetryPolicy(1, Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0)).build());
            consumer.start();
            try {
                restricted.send(queue, "ok", Duration.ZERO, SendOptions.id("ok"));
                await().atMost(Duration.ofSeconds(10)).until(() -> restricted.status(queue, "ok").state()
                        == MessageStatus.State.COMPLETED);
                restricted.send(queue, "bad", Duration.ZERO, SendOptions.id("bad"));
                await().atMost(Duration.ofSeconds(10)).until(() -> restricted.status(queue, "bad").state()
                        == MessageStatus.State.DEAD_LETTERED);
            } finally {
                consumer.stop();
            }
            HistoryPage page = restricted.history(queue, 10);
            assertThat(page.total()).isEqualTo(1); // a count of 1: the first record trimmed by the second settle
            assertThat(page.records()).extracting(SettledMessage::id).containsExactly("bad");
            assertThat(restricted.status(queue, "ok").state()).isEqualTo(MessageStatus.State.UNKNOWN);
        } finally {
            minimal.shutdown();
            command("ACL", "DELUSER", user);
        }
    }

    /**
     * Job sets need the rule set of dedup windows ({@code +set +exists}: their callbacks are sent with one) and
     * nothing more: the set's script, the marks of an ack, a dead letter and a cancel, their forward, the sweep's
     * read, the callbacks and the status.
     */
    @Test
    void jobSetsNeedTheRuleSetOfDedupWindows() throws IOException {
        String user = USER + "-sets";
        String prefix = TestRedis.uniquePrefix();
        command(withSetAndExists(minimalRules(user, prefix)));
        RedissonClient restricted = newClient(user);
        try {
            DelayQueueClient sets = DelayQueueClient.create(restricted, ClientOptions.builder().keyPrefix(prefix).build());
            List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
            DelayQueueConsumer done = sets.newConsumer("acl-set-done", String.class,
                    (payload, context) -> events.add(context.headers().get(JobSet.EVENT_HEADER)),
                    ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100)).build());
            DelayQueueConsumer work = sets.newConsumer("acl-set-work", String.class, (payload, context) -> {
                if (payload.equals("bad")) {
                    throw new IllegalStateException("fails");
                }
            }, ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100))
                    .retry(new RetryPolicy(1, Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0)).build());
            done.start();
            work.start();
            try {
                String set = sets.sendSet(JobSet.builder()
                        .add("acl-set-work", List.of(SendRequest.of("ok", Duration.ZERO), SendRequest.of("bad", Duration.ZERO),
                                SendRequest.of("later", Duration.ofHours(1), SendOptions.id("later"))))
                        .onComplete("acl-set-done", SendRequest.of("closed", Duration.ZERO))
                        .onDeath("acl-set-done", SendRequest.of("died", Duration.ZERO))
                        .build());
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("death"));
                assertThat(sets.cancel("acl-set-work", "later")).isTrue();
                await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("complete"));
                SetStatus status = sets.setStatus(set).orElseThrow();
                assertThat(status.acknowledged()).isEqualTo(1);
                assertThat(status.dead()).isEqualTo(1);
                assertThat(status.cancelled()).isEqualTo(1);
                assertThat(status.deadMembers()).hasSize(1);
            } finally {
                work.stop();
                done.stop();
            }
            redisson.getKeys().unlinkByPattern(prefix + ":*");
        } finally {
            restricted.shutdown();
            command("ACL", "DELUSER", user);
        }
    }

    /** The rules and the commands dedup windows need beyond them (docs/internals/redis-layout.md). */
    private static String[] withSetAndExists(String[] rules) {
        String[] wider = Arrays.copyOf(rules, rules.length + 2);
        wider[rules.length] = "+set";
        wider[rules.length + 1] = "+exists";
        return wider;
    }

    /** Runs a consumer that acknowledges everything until {@code queue} holds no live message. */
    private static void drain(DelayQueueClient client, String queue) {
        DelayQueueConsumer consumer = client.newConsumer(queue, String.class, (payload, context) -> { },
                ConsumerOptions.builder().maxPollInterval(Duration.ofMillis(100)).build());
        consumer.start();
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                QueueStats stats = client.stats(queue);
                return stats.pending() == 0 && stats.inFlight() == 0;
            });
        } finally {
            consumer.stop();
        }
    }

    /** Subscribers of {@code channel} on the test server ({@code PUBSUB NUMSUB}, as its default user). */
    private static long subscribers(String channel) {
        URI url = URI.create(TestRedis.url());
        List<?> reply = (List<?>) RedisProcesses.call(url.getHost(), url.getPort(), "PUBSUB", "NUMSUB", channel);
        return ((Number) reply.get(1)).longValue();
    }

    /**
     * Whether the poller of {@code queue} ({@code delayqueue-poller-<queue>-<n>}) sleeps in its timed wait for the next
     * due time, a wake-up or its poll interval: parked with a timeout inside {@code Poller.awaitNanos}, not claiming.
     */
    private static boolean pollerAsleep(String queue) {
        List<Thread> pollers = FaultSupport.engineThreads(queue, "poller");
        if (pollers.size() != 1 || pollers.get(0).getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        return Arrays.stream(pollers.get(0).getStackTrace()).anyMatch(
                frame -> frame.getClassName().equals("io.github.delayqueue.core.engine.Poller")
                        && frame.getMethodName().equals("awaitNanos"));
    }

    /** The rules of docs/internals/redis-layout.md for {@code user} and key prefix {@code prefix}. */
    private static String[] minimalRules(String user, String prefix) {
        return new String[] {"ACL", "SETUSER", user, "reset", "on", ">" + PASSWORD, "~" + prefix + ":*", "resetchannels",
                "&" + prefix + ":*", "+ping", "+evalsha", "+script|load", "+subscribe", "+unsubscribe",
                "+time", "+publish", "+zadd", "+zrem", "+zrange", "+zrangebyscore", "+zscore", "+zmscore", "+zcard",
                "+zcount", "+hset", "+hget", "+hmget", "+hdel", "+hexists", "+incrby", "+hincrby", "+pexpire"};
    }

    static RedissonClient newClient(String user) {
        Config config = new Config();
        URI url = URI.create(TestRedis.url());
        config.setUsername(user);
        config.setPassword(PASSWORD);
        config.useSingleServer().setAddress("redis://" + url.getHost() + ":" + url.getPort()).setTimeout(2_000)
                .setSubscriptionTimeout(1_000).setRetryAttempts(1);
        return Redisson.create(config);
    }

    /** One command on the test server as its default user, in RESP; returns the first reply line. */
    static String command(String... words) throws IOException {
        URI url = URI.create(TestRedis.url());
        try (Socket socket = new Socket(url.getHost(), url.getPort())) {
            StringBuilder out = new StringBuilder("*").append(words.length).append("\r\n");
            for (String word : words) {
                out.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word)
                        .append("\r\n");
            }
            OutputStream stream = socket.getOutputStream();
            stream.write(out.toString().getBytes(StandardCharsets.UTF_8));
            stream.flush();
            String reply = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (reply == null || reply.startsWith("-")) {
                throw new IOException(String.join(" ", words[0], words[1]) + " failed: " + reply);
            }
            return reply;
        }
    }
}
