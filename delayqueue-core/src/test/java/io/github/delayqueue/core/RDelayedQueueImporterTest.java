package io.github.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;

import io.github.delayqueue.core.migration.ImportLease;
import io.github.delayqueue.core.migration.RDelayedQueueSource;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.faults.FaultSupport;
import io.github.delayqueue.testing.RedisContext;
import io.github.delayqueue.testing.RedisExtension;
import io.github.delayqueue.testing.TestRedis;

/**
 * Issue 22: jobs still pending in a Redisson {@code RDelayedQueue}, written by Redisson 4.7 itself (its default
 * {@code Kryo5Codec}, and JDK serialization with {@code SerializationCodec}), are imported into a delayqueue queue:
 * each delivered once, never before its Redisson due time by the Redis clock, also when an import is interrupted
 * between its write and Redisson's removal and run again.
 *
 * <p>{@code RDelayedQueue} is deprecated in Redisson; this test uses it on purpose, as the application being
 * migrated did.
 */
@SuppressWarnings("deprecation")
@ExtendWith(RedisExtension.class)
class RDelayedQueueImporterTest {

    /** A payload class of the kind such applications offered: serializable, with a no-argument constructor. */
    public static class LegacyTimeout implements Serializable {
        private static final long serialVersionUID = 1L;
        private long orderId;
        private String reason;

        public LegacyTimeout() {
        }

        LegacyTimeout(long orderId, String reason) {
            this.orderId = orderId;
            this.reason = reason;
        }

        public long getOrderId() {
            return orderId;
        }

        public void setOrderId(long orderId) {
            this.orderId = orderId;
        }

        public String getReason() {
            return reason;
        }

        public void setReason(String reason) {
            this.reason = reason;
        }
    }

    /** A class the allow-list of the JDK test does not name. */
    public static class NotAllowed implements Serializable {
        private static final long serialVersionUID = 1L;
        public String secret = "x";
    }

    /** The new application's payload. */
    public record PaymentTimeout(long orderId) {
    }

    private final List<String> sources = new ArrayList<>();
    private final List<DelayQueueConsumer> consumers = new ArrayList<>();

    @AfterEach
    void cleanUp(RedisContext redis) {
        consumers.forEach(DelayQueueConsumer::stop);
        for (String name : sources) {
            redis.redisson().getKeys().delete(name, RDelayedQueueSource.prefixName("redisson_delay_queue", name),
                    RDelayedQueueSource.prefixName("redisson_delay_queue_timeout", name));
        }
    }

    @Test
    void entriesWrittenByRedissonWithItsDefaultCodecAreImportedOnceAtTheirDueTime(RedisContext redis) {
        String name = source(redis, "kryo");
        String queue = "kryo-target";
        Map<String, List<Long>> dueByReason = new HashMap<>();
        // the old application: two values offered due at once and already transferred to the destination queue
        // by Redisson's transfer task, then three pending ones, two of them equal (still two jobs)
        oldApplication(name, null, (delayed, destination) -> {
            delayed.offer(new LegacyTimeout(1, "ready-1"), 0, TimeUnit.MILLISECONDS);
            delayed.offer(new LegacyTimeout(2, "ready-2"), 0, TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> destination.size() == 2);
            delayed.offer(new LegacyTimeout(3, "later"), 1_500, TimeUnit.MILLISECONDS);
            delayed.offer(new LegacyTimeout(4, "twice"), 2_000, TimeUnit.MILLISECONDS);
            delayed.offer(new LegacyTimeout(4, "twice"), 2_000, TimeUnit.MILLISECONDS);
        });
        dueByReason.putAll(pendingDueTimes(redis, name, new Kryo5Codec(), v -> ((LegacyTimeout) v).getReason()));
        assertThat(dueByReason).containsOnlyKeys("later", "twice"); // equal values: one key, two entries
        DelayQueueClient client = redis.client();
        Map<String, byte[]> before = snapshot(redis, name);

        ImportReport dry = importer(client, name, new Kryo5Codec(), queue).dryRun(true).build().run();

        assertThat(dry.found()).isEqualTo(5);
        assertThat(dry.readyInDestination()).isEqualTo(2);
        assertThat(dry.dueAlready()).isGreaterThanOrEqualTo(2);
        assertThat(dry.imported()).isZero();
        assertThat(dry.removed()).isZero();
        assertThat(dry.failed()).isZero();
        assertThat(dry.complete()).isTrue();
        assertThat(snapshot(redis, name)).as("a dry run writes nothing").isEqualTo(before);
        ImportReport dryOneByOne = importer(client, name, new Kryo5Codec(), queue).dryRun(true).batchSize(1).build().run();
        assertThat(dryOneByOne.found()).as("paging by one entry reads each once").isEqualTo(5);
        assertThat(dryOneByOne.readyInDestination()).isEqualTo(2);
        assertThat(snapshot(redis, name)).isEqualTo(before);
        assertThat(redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":{" + queue + "}*").count())
                .isZero();

        List<Delivered> delivered = startConsumer(client, queue, LegacyTimeout.class,
                (LegacyTimeout t) -> t.getReason());
        // the codec exactly as the writer had it: a Kryo5Codec with an allow-list (registration required) read these
        // entries without an error into wrong values (a String field held the class name), see the guide
        ImportReport report = importer(client, name, new Kryo5Codec(), queue).build().run();

        assertThat(report.found()).isEqualTo(5);
        assertThat(report.readyInDestination()).isEqualTo(2);
        assertThat(report.imported()).isEqualTo(5);
        assertThat(report.alreadyImported()).isZero();
        assertThat(report.removed()).isEqualTo(5);
        assertThat(report.remaining()).isZero();
        assertThat(report.complete()).isTrue();
        assertThat(snapshot(redis, name)).as("Redisson's structures are empty").isEmpty();
        await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 5);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 5);
        assertThat(delivered).extracting(Delivered::key)
                .containsExactlyInAnyOrder("ready-1", "ready-2", "later", "twice", "twice");
        for (Delivered d : delivered) {
            assertThat(d.redisNowMs()).as("never early, by the Redis clock: %s", d).isGreaterThanOrEqualTo(d.dueMs());
            if (dueByReason.containsKey(d.key())) {
                assertThat(dueByReason.get(d.key())).as("the Redisson due time is kept: %s", d).contains(d.dueMs());
            }
        }
        assertThat(redis.redisson().getKeys().countExists(client.queueOps(queue).keys().importLedger()))
                .as("the ledger is gone once nothing is left to import").isZero();
        // a second run finds nothing and changes nothing
        ImportReport again = importer(client, name, new Kryo5Codec(), queue).build().run();
        assertThat(again.found()).isZero();
        assertThat(again.imported()).isZero();
    }

    @Test
    void entriesAreImportedIntoEveryPartitionOfAPartitionedQueue(RedisContext redis) {
        String name = source(redis, "partitioned");
        String queue = "partitioned-target";
        oldApplication(name, null, (delayed, destination) -> {
            for (int i = 0; i < 30; i++) {
                delayed.offer(new LegacyTimeout(i, "p" + i), 300, TimeUnit.MILLISECONDS);
            }
        });
        DelayQueueClient client = DelayQueueClient.create(redis.redisson(),
                ClientOptions.builder().keyPrefix(redis.prefix()).partitions(queue, 3).build());
        List<Delivered> delivered = startConsumer(client, queue, LegacyTimeout.class, (LegacyTimeout t) -> t.getReason());

        ImportReport report = importer(client, name, new Kryo5Codec(), queue).batchSize(7).build().run();

        assertThat(report.imported()).isEqualTo(30);
        assertThat(report.removed()).isEqualTo(30);
        await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 30);
        for (QueueOps part : client.queueRoute(queue).parts()) {
            assertThat(redis.redisson().getKeys().countExists(part.keys().importLedger())).isZero();
        }
        assertThat(importer(client, name, new Kryo5Codec(), queue).build().run().found()).isZero();
    }

    @Test
    void jdkSerializedEntriesAreDecodedThroughAnAllowListMappedAndCheckedAgainstThePayloadType(RedisContext redis) {
        String name = source(redis, "jdk");
        String queue = "jdk-target";
        oldApplication(name, new SerializationCodec(), (delayed, destination) -> {
            delayed.offer(new LegacyTimeout(41, "a"), 1_000, TimeUnit.MILLISECONDS);
            delayed.offer(new LegacyTimeout(42, "b"), 1_200, TimeUnit.MILLISECONDS);
            delayed.offer(new LegacyTimeout(42, "b-again"), 1_400, TimeUnit.MILLISECONDS); // same order: merged by id
            delayed.offer(new NotAllowed(), 1_000, TimeUnit.MILLISECONDS);
            delayed.offer(new LegacyTimeout(-1, "unbindable"), 1_000, TimeUnit.MILLISECONDS);
        });
        Codec allowList = new SerializationCodec(getClass().getClassLoader(), Set.of(LegacyTimeout.class.getName()));
        DelayQueueClient client = redis.client();
        List<Delivered> delivered = startConsumer(client, queue, PaymentTimeout.class,
                (PaymentTimeout t) -> "order-" + t.orderId());

        ImportReport report = importer(client, name, allowList, queue)
                .mapping(v -> {
                    LegacyTimeout t = (LegacyTimeout) v;
                    return t.getOrderId() < 0 ? Map.of("orderId", "not a number") : new PaymentTimeout(t.getOrderId());
                })
                .ids(v -> "order-" + ((LegacyTimeout) v).getOrderId())
                .payloadType(PaymentTimeout.class)
                .build().run();

        assertThat(report.found()).as("%s", report).isEqualTo(5);
        assertThat(report.imported()).as("%s", report).isEqualTo(2);
        assertThat(report.alreadyImported()).as("order 42's second entry has the id of its first").isEqualTo(1);
        assertThat(report.removed()).isEqualTo(3);
        assertThat(report.failed()).isEqualTo(2);
        assertThat(report.remaining()).as("failed entries stay in Redisson").isEqualTo(2);
        assertThat(report.complete()).isFalse();
        assertThat(report.failures()).extracting(ImportReport.Failure::reason).anySatisfy(reason -> assertThat(reason)
                .contains("could not decode with " + SerializationCodec.class.getName()))
                .anySatisfy(reason -> assertThat(reason).contains("does not bind to the queue's payload type")
                        .contains(PaymentTimeout.class.getTypeName()));
        assertThat(report.failures()).allSatisfy(f -> assertThat(f.dueAt()).isNotNull());
        await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 2);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 2);
        assertThat(delivered).extracting(Delivered::key).containsExactlyInAnyOrder("order-41", "order-42");
        assertThat(delivered).allSatisfy(d -> assertThat(d.redisNowMs()).isGreaterThanOrEqualTo(d.dueMs()));
        assertThat(redis.redisson().getKeys().countExists(client.queueOps(queue).keys().importLedger()))
                .as("ledger entries of removed entries are deleted").isZero();

        // with the mapping fixed, a re-run imports what failed for the mapping; the class outside the allow-list
        // still fails and stays
        ImportReport again = importer(client, name, allowList, queue).payloadType(PaymentTimeout.class)
                .mapping(v -> new PaymentTimeout(((LegacyTimeout) v).getOrderId())).build().run();
        assertThat(again.found()).isEqualTo(2);
        assertThat(again.imported()).isEqualTo(1);
        assertThat(again.failed()).isEqualTo(1);
        assertThat(again.remaining()).isEqualTo(1);
        assertThat(again.failures().get(0).reason()).contains(NotAllowed.class.getName());
    }

    @Test
    void anImportInterruptedBetweenItsWriteAndRedissonsRemovalAndRunAgainDeliversEveryJobOnce(RedisContext redis) {
        String name = source(redis, "crash");
        String queue = "crash-target";
        int ready = 100;
        int soon = 50;
        int later = 150;
        int total = ready + soon + later;
        oldApplication(name, null, (delayed, destination) -> {
            for (int i = 0; i < ready; i++) {
                delayed.offer("job-" + i, 0, TimeUnit.MILLISECONDS);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> destination.size() == ready);
            for (int i = ready; i < ready + soon; i++) {
                delayed.offer("job-" + i, 300, TimeUnit.MILLISECONDS);
            }
            for (int i = ready + soon; i < total; i++) {
                delayed.offer("job-" + i, 3_000 + 20L * (i - ready - soon), TimeUnit.MILLISECONDS);
            }
        });
        Map<String, List<Long>> redissonDue = pendingDueTimes(redis, name, new Kryo5Codec(), String::valueOf);
        DelayQueueClient client = redis.client();
        List<Delivered> delivered = startConsumer(client, queue, String.class, (String s) -> s);
        int crashAfter = 150; // three batches of 50 written; the third is not removed from Redisson

        RDelayedQueueImporter first = importer(client, name, new Kryo5Codec(), queue).batchSize(50).build()
                .afterWrite(written -> {
                    if (written >= crashAfter) {
                        throw new IllegalStateException("simulated crash after " + written + " entries written");
                    }
                });
        assertThatThrownBy(first::run).isInstanceOf(DelayQueueException.class)
                .hasMessageContaining("simulated crash").hasMessageContaining("run again");
        long leftInRedisson = new RDelayedQueueSource(redis.redisson(), name).delayedSize();
        assertThat(leftInRedisson).as("the written but not removed batch is still in Redisson")
                .isEqualTo(total - crashAfter + 50);
        // the messages of the interrupted batch are due: they are delivered and acknowledged before the re-run,
        // so only the ledger (not the live id) can keep the re-run from sending them again
        await().atMost(Duration.ofSeconds(30)).until(() -> distinct(delivered) >= crashAfter);

        long rerunStart = System.nanoTime();
        ImportReport rerun = importer(client, name, new Kryo5Codec(), queue).batchSize(50).build().run();
        long rerunMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - rerunStart);

        assertThat(rerun.alreadyImported()).isEqualTo(50);
        assertThat(rerun.imported()).isEqualTo(total - crashAfter);
        assertThat(rerun.removed()).isEqualTo(total - crashAfter + 50);
        assertThat(rerun.complete()).isTrue();
        await().atMost(Duration.ofSeconds(60)).until(() -> distinct(delivered) == total);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == total);
        Map<String, Integer> times = new HashMap<>();
        delivered.forEach(d -> times.merge(d.key(), 1, Integer::sum));
        long duplicates = delivered.size() - times.size();
        long early = delivered.stream().filter(d -> d.redisNowMs() < d.dueMs()).count();
        long dueMoved = delivered.stream()
                .filter(d -> redissonDue.containsKey(d.key()) && !redissonDue.get(d.key()).contains(d.dueMs())).count();
        FaultSupport.report("rdelayedqueue-import-interrupted", total, times.size(), total - times.size(), duplicates,
                rerunMs, "crashed_after_written=" + crashAfter + " batch=50 left_in_redisson_at_crash=" + leftInRedisson
                        + " already_imported_on_rerun=" + rerun.alreadyImported() + " delivered_before_rerun>="
                        + crashAfter + " early=" + early + " due_time_changed=" + dueMoved + " ready_in_destination="
                        + ready + " codec=Kryo5Codec");
        assertThat(times).hasSize(total);
        assertThat(duplicates).isZero();
        assertThat(early).isZero();
        assertThat(dueMoved).as("every pending entry keeps its Redisson due time").isZero();
        assertThat(snapshot(redis, name)).as("Redisson's keys are empty").isEmpty();
        assertThat(redis.redisson().getKeys().countExists(client.queueOps(queue).keys().importLedger())).isZero();
    }

    /**
     * Issue 32: the sample ran the import on every instance at startup. Two runs at once: the second read the
     * entries before the first removed them and wrote them after the first had cleaned its ledger, when their
     * messages had been delivered and acknowledged: each job ran twice. Now the second refuses at once, having
     * read and written nothing, and a third that waits for the lease runs after the first and finds nothing left.
     */
    @Test
    void twoImportsStartedAtOnceDeliverEveryJobOnceTheSecondRefusesAndOneThatWaitsFindsNothingLeft(RedisContext redis)
            throws Exception {
        String name = source(redis, "concurrent");
        String queue = "concurrent-target";
        int total = 40;
        oldApplication(name, null, (delayed, destination) -> {
            for (int i = 0; i < total; i++) {
                delayed.offer("job-" + i, 5, TimeUnit.MINUTES);
            }
        });
        DelayQueueClient client = redis.client();
        List<Delivered> delivered = startConsumer(client, queue, String.class, (String s) -> s);
        java.util.concurrent.CountDownLatch firstEnded = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean secondRead = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.ExecutorService others = java.util.concurrent.Executors.newFixedThreadPool(2);
        List<java.util.concurrent.Future<ImportReport>> second = new ArrayList<>();
        try {
            RDelayedQueueImporter first = importer(client, name, new Kryo5Codec(), queue)
                    .mapping(value -> value).build()
                    .afterWrite(written -> {
                        // between the first's write and its removal from Redisson: a second import starts and, on
                        // the old code, reads every entry (its mapping then waits until the first has ended)
                        second.add(others.submit(() -> importer(client, name, new Kryo5Codec(), queue)
                                .mapping(value -> {
                                    secondRead.set(true);
                                    awaitLatch(firstEnded);
                                    return value;
                                }).build().run()));
                        await().atMost(Duration.ofSeconds(30)).until(() -> secondRead.get() || second.get(0).isDone());
                        // a third waits for the lease instead of refusing
                        second.add(others.submit(() -> importer(client, name, new Kryo5Codec(), queue)
                                .waitForOtherImport(Duration.ofSeconds(60)).build().run()));
                        // the first's messages are due now: delivered and acknowledged before it removes them
                        client.pending(queue, 0, total).messages()
                                .forEach(message -> client.reschedule(queue, message.id(), Duration.ZERO));
                        await().atMost(Duration.ofSeconds(30)).until(() -> distinct(delivered) == total);
                    });
            ImportReport report = first.run();
            firstEnded.countDown();
            assertThat(report.imported()).isEqualTo(total);
            assertThat(report.complete()).isTrue();

            assertThatThrownBy(() -> second.get(0).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ImportInProgressException.class)
                    .cause().hasMessageContaining("Another RDelayedQueue import holds the import lease")
                    .hasMessageContaining("import of RDelayedQueue '" + name + "' into queue '" + queue + "'")
                    .hasMessageContaining("waitForOtherImport");
            assertThat(secondRead).as("the refused import read nothing").isFalse();
            ImportReport third = second.get(1).get(60, TimeUnit.SECONDS);
            assertThat(third.found()).isZero();
            assertThat(third.imported()).isZero();
            // nothing written again: no job waits for a second delivery (its Redisson due time is minutes away)
            assertThat(client.pending(queue, 0, 1).total()).as("jobs written twice").isZero();
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == total);
            assertThat(distinct(delivered)).isEqualTo(total);
            assertThat(redis.redisson().getKeys().countExists(ImportLease.key(redis.prefix()))).as("lease released")
                    .isZero();
        } finally {
            firstEnded.countDown();
            others.shutdownNow();
        }
    }

    /** The lease expires when its holder dies, is renewed while a run lasts longer than it, and is released after. */
    @Test
    void theImportLeaseExpiresWhenItsHolderDiedAndIsRenewedWhileARunLasts(RedisContext redis) {
        String name = source(redis, "lease");
        String queue = "lease-target";
        oldApplication(name, null, (delayed, destination) -> delayed.offer("job", 5, TimeUnit.MINUTES));
        DelayQueueClient client = redis.client();
        String key = ImportLease.key(redis.prefix());
        org.redisson.api.RBucket<String> lease = redis.redisson().getBucket(key, StringCodec.INSTANCE);
        // a holder that died (kill -9) left its lease, with 1.5 s to run
        lease.set("dead-token import of something by 1@elsewhere since then", Duration.ofMillis(1_500));
        assertThatThrownBy(() -> importer(client, name, new Kryo5Codec(), queue).build().run())
                .isInstanceOf(ImportInProgressException.class).hasMessageContaining("by 1@elsewhere");
        assertThat(new RDelayedQueueSource(redis.redisson(), name).delayedSize()).isEqualTo(1);

        List<String> heldBy = new CopyOnWriteArrayList<>();
        ImportReport report = importer(client, name, new Kryo5Codec(), queue)
                .waitForOtherImport(Duration.ofSeconds(30)).build()
                .leaseTtl(Duration.ofMillis(900))
                .afterWrite(written -> {
                    String token = lease.get();
                    assertThat(token).contains("into queue '" + queue + "'");
                    // three times its expiry: still this run's, so renewed
                    await().during(Duration.ofMillis(2_700)).atMost(Duration.ofSeconds(10))
                            .until(() -> token.equals(lease.get()));
                    heldBy.add(token);
                }).run();
        assertThat(report.imported()).isEqualTo(1);
        assertThat(heldBy).hasSize(1);
        assertThat(lease.isExists()).as("released at the end").isFalse();
    }

    @Test
    void anImportInterruptedAfterRedissonsRemovalLeavesOnlyLedgerIdsThatTheNextCompleteRunDeletes(RedisContext redis) {
        String name = source(redis, "crash-after-remove");
        String queue = "crash-after-remove-target";
        int total = 40;
        oldApplication(name, null, (delayed, destination) -> {
            for (int i = 0; i < total; i++) {
                delayed.offer("job-" + i, 500 + 10L * i, TimeUnit.MILLISECONDS);
            }
        });
        DelayQueueClient client = redis.client();
        String ledger = client.queueOps(queue).keys().importLedger();
        List<Delivered> delivered = startConsumer(client, queue, String.class, (String s) -> s);

        RDelayedQueueImporter first = importer(client, name, new Kryo5Codec(), queue).batchSize(10).build()
                .afterRemove(handled -> {
                    if (handled >= 20) {
                        throw new IllegalStateException("simulated crash after removing " + handled + " entries");
                    }
                });
        assertThatThrownBy(first::run).isInstanceOf(DelayQueueException.class).hasMessageContaining("simulated crash");
        assertThat(redis.redisson().getMap(ledger, StringCodec.INSTANCE).size())
                .as("the second batch's ids: removed from Redisson, still in the ledger").isEqualTo(10);
        ImportReport rerun = importer(client, name, new Kryo5Codec(), queue).batchSize(10).build().run();

        assertThat(rerun.found()).isEqualTo(total - 20);
        assertThat(rerun.imported()).isEqualTo(total - 20);
        assertThat(rerun.alreadyImported()).isZero();
        assertThat(rerun.complete()).isTrue();
        assertThat(redis.redisson().getKeys().countExists(ledger)).as("left-over ledger ids deleted").isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> distinct(delivered) == total);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == total);
    }

    /** The offer script of Redisson 3.x releases before the 'Bc0Lc0' format, as they ran it (random number id). */
    private static final String OLD_OFFER = "local value = struct.pack('dLc0', tonumber(ARGV[2]), string.len(ARGV[3]), ARGV[3]);"
            + "redis.call('zadd', KEYS[2], ARGV[1], value);redis.call('rpush', KEYS[3], value);";

    @Test
    void entriesPackedTheWayOlderRedissonReleasesPackedThemAreImportedToo(RedisContext redis) throws Exception {
        String name = source(redis, "old-format");
        String queue = "old-format-target";
        Codec kryo = new Kryo5Codec();
        long due = redis.client().stats(queue).serverTime().toEpochMilli() + 500;
        for (int i = 0; i < 3; i++) {
            io.netty.buffer.ByteBuf encoded = kryo.getValueEncoder().encode("old-" + (i % 2)); // two equal values
            byte[] bytes = new byte[encoded.readableBytes()];
            encoded.readBytes(bytes);
            encoded.release();
            redis.redisson().getScript(ByteArrayCodec.INSTANCE).eval(name, org.redisson.api.RScript.Mode.READ_WRITE,
                    OLD_OFFER, org.redisson.api.RScript.ReturnType.VALUE,
                    List.of(name, RDelayedQueueSource.prefixName("redisson_delay_queue_timeout", name),
                            RDelayedQueueSource.prefixName("redisson_delay_queue", name)),
                    Long.toString(due + i).getBytes(), Long.toString(1_000_000_007L * (i + 1)).getBytes(), bytes);
        }
        DelayQueueClient client = redis.client();
        List<Delivered> delivered = startConsumer(client, queue, String.class, (String s) -> s);

        ImportReport report = importer(client, name, kryo, queue).build().run();

        assertThat(report.imported()).as("%s", report).isEqualTo(3);
        assertThat(report.complete()).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() >= 3);
        assertThat(delivered).extracting(Delivered::key).containsExactlyInAnyOrder("old-0", "old-1", "old-0");
        assertThat(delivered).extracting(Delivered::dueMs).containsExactlyInAnyOrder(due, due + 1, due + 2);
        assertThat(delivered).allSatisfy(d -> assertThat(d.redisNowMs()).isGreaterThanOrEqualTo(d.dueMs()));
    }

    @Test
    void badArgumentsAreRejectedByTheBuilderAndNothingIsWritten(RedisContext redis) {
        String name = source(redis, "bad");
        oldApplication(name, null, (delayed, destination) -> delayed.offer("x", 1, TimeUnit.HOURS));
        DelayQueueClient client = redis.client();
        Map<String, byte[]> before = snapshot(redis, name);
        Codec kryo = new Kryo5Codec();
        List<Runnable> calls = List.of(
                () -> RDelayedQueueImporter.builder(null),
                () -> RDelayedQueueImporter.builder(client).to("q").build(),
                () -> RDelayedQueueImporter.builder(client).from(null, kryo).to("q").build(),
                () -> RDelayedQueueImporter.builder(client).from(" ", kryo).to("q").build(),
                () -> RDelayedQueueImporter.builder(client).from("a\nb", kryo).to("q").build(),
                () -> RDelayedQueueImporter.builder(client).from(name, null).to("q").build(),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).build(),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).to("bad name").build(),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).to("q").batchSize(0).build(),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).to("q").batchSize(1_001).build(),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).to("q").mapping(null),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).to("q").ids(null),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).to("q").payloadType(null),
                () -> RDelayedQueueImporter.builder(client).from(name, kryo).to("q").payloadType(Runnable.class).build());
        for (Runnable call : calls) {
            assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("null:");
        }
        assertThat(snapshot(redis, name)).isEqualTo(before);
        assertThat(redis.redisson().getKeys().getKeysStreamByPattern(redis.prefix() + ":*").count()).isZero();
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** One delivery: its payload's key, its due time and the Redis clock when the handler ran. */
    record Delivered(String key, long dueMs, long redisNowMs) {
    }

    private interface OldApplication {
        void run(RDelayedQueue<Object> delayed, RBlockingQueue<Object> destination);
    }

    private String source(RedisContext redis, String what) {
        String name = redis.prefix() + "-" + what;
        sources.add(name);
        return name;
    }

    /**
     * Runs code as the old application did, on a Redisson client of its own with Redisson's default codec (or
     * {@code codec}), then stops its transfer task ({@code destroy()}) and the client, as the guide asks.
     */
    private static void oldApplication(String name, Codec codec, OldApplication body) {
        RedissonClient old = TestRedis.newClient();
        try {
            RBlockingQueue<Object> destination = codec == null ? old.getBlockingQueue(name)
                    : old.getBlockingQueue(name, codec);
            RDelayedQueue<Object> delayed = old.getDelayedQueue(destination);
            body.run(delayed, destination);
            delayed.destroy();
        } finally {
            old.shutdown();
        }
    }

    private static RDelayedQueueImporter.Builder importer(DelayQueueClient client, String name, Codec codec,
            String queue) {
        return RDelayedQueueImporter.builder(client).from(name, codec).to(queue);
    }

    /** Due time of each pending entry, by a key of its decoded value, read straight from Redisson's timeout set. */
    private static Map<String, List<Long>> pendingDueTimes(RedisContext redis, String name, Codec codec,
            java.util.function.Function<Object, String> key) {
        RDelayedQueueSource source = new RDelayedQueueSource(redis.redisson(), name);
        Map<String, List<Long>> due = new HashMap<>();
        for (RDelayedQueueSource.Entry e : source.read(0, 10_000).entries()) {
            try {
                Object value = codec.getValueDecoder().decode(io.netty.buffer.Unpooled.wrappedBuffer(e.value()),
                        new org.redisson.client.handler.State());
                due.computeIfAbsent(key.apply(value), k -> new ArrayList<>()).add(e.dueMs());
            } catch (java.io.IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
        }
        return due;
    }

    /** Every key of the Redisson queue and its bytes, to show what a call did not change. */
    private static Map<String, byte[]> snapshot(RedisContext redis, String name) {
        Map<String, byte[]> dump = new HashMap<>();
        for (String key : List.of(name, RDelayedQueueSource.prefixName("redisson_delay_queue", name),
                RDelayedQueueSource.prefixName("redisson_delay_queue_timeout", name))) {
            byte[] bytes = redis.redisson().getBucket(key, ByteArrayCodec.INSTANCE).dump();
            if (bytes != null) {
                dump.put(key, bytes);
            }
        }
        return new SnapshotMap(dump);
    }

    /** A map whose equality compares the byte arrays' contents. */
    private static final class SnapshotMap extends HashMap<String, byte[]> {
        SnapshotMap(Map<String, byte[]> m) {
            super(m);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Map<?, ?> other) || other.size() != size()) {
                return false;
            }
            return entrySet().stream().allMatch(e -> other.get(e.getKey()) instanceof byte[] b
                    && java.util.Arrays.equals(b, e.getValue()));
        }

        @Override
        public int hashCode() {
            return keySet().hashCode();
        }
    }

    private <T> List<Delivered> startConsumer(DelayQueueClient client, String queue, Class<T> type,
            java.util.function.Function<T, String> key) {
        List<Delivered> delivered = new CopyOnWriteArrayList<>();
        DelayQueueConsumer consumer = client.newConsumer(queue, type, (T payload, MessageContext context) -> {
            long redisNow = client.stats(queue).serverTime().toEpochMilli();
            delivered.add(new Delivered(key.apply(payload), context.dueAt().toEpochMilli(), redisNow));
        }, ConsumerOptions.builder().concurrency(8).build());
        consumer.start();
        consumers.add(consumer);
        return delivered;
    }

    private static void awaitLatch(java.util.concurrent.CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static long distinct(List<Delivered> delivered) {
        return delivered.stream().map(Delivered::key).distinct().count();
    }
}
