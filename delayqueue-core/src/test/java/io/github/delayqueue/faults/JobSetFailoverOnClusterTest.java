package io.github.delayqueue.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.MessageHandler;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RetryPolicy;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.SetScript;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.testing.RedisProcesses;
import io.github.delayqueue.testing.TestCluster;
import io.github.delayqueue.testing.TestRedis;

/**
 * Job sets (issue: the callback fires exactly once): a set of 10,000 members on two queues of 3 partitions each, on an
 * embedded Redis Cluster of 3 masters and 3 replicas ({@code cluster-node-timeout} 2 s), drained by four consumer
 * instances (a Redisson client each, the starter's cluster settings, {@link FailoverTest#tune}), with its success and
 * complete callbacks on a third queue that an instance of its own consumes. While the members are due (their delays
 * spread over {@link #SPREAD}, so the drain lasts that long whatever the machine's speed) two instances are killed (their
 * Redisson shut down at once while their handlers run: their settles and forwards fail half-way, their leases (2 s)
 * run out and the members are delivered again elsewhere, the marks they settled without forwarding wait for a periodic
 * pass's sweep) and a replacement starts, and the master holding the set's own keys, which holds a partition of the
 * members too, is failed over ({@code CLUSTER FAILOVER} on its replica, {@link TestCluster#failover}).
 * <p>
 * Asserted strictly: every member handled at least once; the set counts all 10,000 acknowledged, none pending or dead;
 * the success and the complete callback each handled exactly once, from one write each, also after every mark left
 * behind has been forwarded (the marks keys of all six partitions empty) and a while more; the callback queue empty.
 * Only the callbacks' lateness after the last member is bounded, generously: a mark left by a killed instance waits for
 * a sweep, once it is 10 s old, by the queue partition's periodic pass, which the instances take in turn every 30 poll
 * intervals of 1 s (a killed instance's turns are lost until its registration lapses, 15 s).
 * <p>
 * The failover is the coordinated one, which loses no acknowledged write: the replica takes over once it has the
 * master's every write. A SIGKILLed master loses the writes it had not yet replicated; for a set that may be a forward
 * whose marks are already deleted in the members' partitions (other slots, other masters), after which the set counts
 * those members pending for good (set.lua's writes are not waited for, whatever {@code waitForReplicas}): that is a
 * limit of the design, not asserted here: {@link #aForwardLostWithTheSetsMasterStillCompletesTheSet} shows it.
 * <p>
 * Prints a FAULT line (target/faults/fault-lines.txt): {@code duplicates} (extra member deliveries: what the killed
 * instances had in flight), {@code recover_ms} (the last member's first delivery to the success callback).
 */
class JobSetFailoverOnClusterTest {

    private static final int MEMBERS = 10_000;
    private static final List<String> QUEUES = List.of("js-mails", "js-texts");
    /** Members per queue: 6,000 and 4,000. */
    private static final int[] PER_QUEUE = { 6_000, 4_000 };
    private static final String CALLBACKS = "js-done";
    private static final int PARTITIONS = 3;
    /** The members' delays are spread over this: the drain takes at least as long, and the faults fall inside it. */
    private static final Duration SPREAD = Duration.ofSeconds(12);
    private static final Duration LEASE = Duration.ofSeconds(2);
    /** Enough attempts that leases lost with a killed instance never dead-letter a member. */
    private static final RetryPolicy RETRIES = new RetryPolicy(20, Duration.ofMillis(100), 1, Duration.ofMillis(100), 0);
    private static final ConsumerOptions CONSUMER_OPTIONS = ConsumerOptions.builder().concurrency(8)
            .visibilityTimeout(LEASE).retry(RETRIES).shutdownTimeout(Duration.ofSeconds(2)).build();
    /**
     * Most time from the last member's first delivery to the callbacks: the sweep of marks a killed instance left, 10 s
     * after it settled them, at the partition's next periodic pass (every 30 s; 30 s more when that turn was the killed
     * instance's), and room for a loaded machine. Measured: 0.1 to 25 s.
     */
    private static final Duration CALLBACK_BOUND = Duration.ofSeconds(75);

    /** A consumer instance: its own Redisson client, client and consumers. */
    private record Instance(String name, RedissonClient redisson, DelayQueueClient client, List<DelayQueueConsumer> consumers) {

        /** Abruptly: the Redisson client goes at once, with handlers running; then the consumers are told to stop. */
        void kill() {
            redisson.shutdown(0, 0, TimeUnit.MILLISECONDS);
            consumers.forEach(DelayQueueConsumer::stopAsync);
        }

        void stop() {
            for (DelayQueueConsumer consumer : consumers) {
                try {
                    consumer.stopAsync().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // a killed instance's consumer may fail its last settles: its Redisson is gone
                }
            }
            if (!redisson.isShutdown()) {
                FaultSupport.shutdown(redisson);
            }
        }
    }

    /** One callback handled: its event, id and when its message was written (one write per callback). */
    private record Callback(String event, String id, Instant enqueuedAt, String set) {
    }

    @Test
    void callbacksFireExactlyOnceWhileConsumersAreKilledAndTheSetsMasterFailsOver() throws Exception {
        try (TestCluster cluster = TestCluster.startEmbedded(2_000)) {
            String prefix = TestRedis.uniquePrefix();
            String setId = setOnAMasterOfAPartition(cluster, prefix);
            int master = cluster.masterPortOf("{" + setId + "}");
            int replica = cluster.replicaPortOf(master).orElseThrow();
            ClientOptions options = options(prefix);

            Map<String, AtomicInteger> handled = new ConcurrentHashMap<>(); // "<queue>:<id>" -> handler calls
            Map<String, Long> firstHandledAt = new ConcurrentHashMap<>();
            List<Callback> callbacks = new CopyOnWriteArrayList<>();
            List<Instance> instances = new CopyOnWriteArrayList<>();
            RedissonClient observerRedis = cluster.newClient(FailoverTest::tune);
            try {
                DelayQueueClient observer = DelayQueueClient.create(observerRedis, options);
                instances.add(observeCallbacks(observerRedis, observer, callbacks));

                MembersHandler handler = new MembersHandler(handled, firstHandledAt);
                for (int i = 0; i < 4; i++) {
                    instances.add(start("worker-" + i, cluster, options, handler));
                }

                JobSet.Builder set = JobSet.builder().id(setId)
                        .onSuccess(CALLBACKS, SendRequest.of("all acknowledged", Duration.ZERO))
                        .onComplete(CALLBACKS, SendRequest.of("all settled", Duration.ZERO));
                for (int q = 0; q < QUEUES.size(); q++) {
                    List<SendRequest> requests = new ArrayList<>(PER_QUEUE[q]);
                    for (int i = 0; i < PER_QUEUE[q]; i++) {
                        String id = "m-" + q + "-" + i;
                        requests.add(SendRequest.of(id, Duration.ofMillis(ThreadLocalRandom.current()
                                .nextLong(SPREAD.toMillis())), SendOptions.id(id)));
                    }
                    set.add(QUEUES.get(q), requests);
                }
                long sentAt = System.nanoTime();
                assertThat(observer.sendSet(set.build())).isEqualTo(setId);
                long sendMs = FaultSupport.millisSince(sentAt);

                // kill one instance a sixth of the way in, fail the set's master over a third of the way in, kill a
                // second instance straight after the promotion (its client still finding the new master), start another
                awaitHandled(handled, MEMBERS / 6);
                instances.get(1).kill();
                awaitHandled(handled, MEMBERS / 3);
                long failoverAt = System.nanoTime();
                failOver(cluster, replica);
                long promotedMs = FaultSupport.millisSince(failoverAt);
                int handledAtPromotion = handled.size();
                instances.get(2).kill();
                instances.add(start("worker-4", cluster, options, handler));

                await("every member handled").atMost(SPREAD.plus(Duration.ofSeconds(90)))
                        .until(() -> handled.size() == MEMBERS);
                long lastFirstHandled = firstHandledAt.values().stream().mapToLong(Long::longValue).max().orElseThrow();
                await("success and complete callbacks").atMost(CALLBACK_BOUND.plus(Duration.ofSeconds(15)))
                        .until(() -> callbacks.size() >= 2);
                long callbackMs = (System.nanoTime() - lastFirstHandled) / 1_000_000;
                // every mark forwarded, those the killed instances left included (a sweep), then a while more: a
                // second callback would come from one of these forwards
                await("every partition's job-set marks forwarded").atMost(Duration.ofSeconds(90))
                        .until(() -> marksLeft(observerRedis, prefix) == 0);
                Thread.sleep(3_000);

                SetStatus status = observer.setStatus(setId).orElseThrow();
                long duplicates = handled.values().stream().mapToLong(n -> n.get() - 1).sum();
                FaultSupport.report("jobset-cluster-failover", MEMBERS, handled.size(), MEMBERS - handled.size(),
                        duplicates, callbackMs, "redis=cluster(3+3,node_timeout=2000ms) partitions=" + PARTITIONS
                                + " queues=" + QUEUES.size() + " killed_instances=2 fault=CLUSTER_FAILOVER(set_master)"
                                + " send_ms=" + sendMs + " promoted_ms=" + promotedMs + " handled_at_promotion="
                                + handledAtPromotion + " acknowledged=" + status.acknowledged() + " pending="
                                + status.pending() + " callbacks=" + callbacks.size());

                assertThat(handled).as("members handled").hasSize(MEMBERS);
                assertThat(status.total()).isEqualTo(MEMBERS);
                assertThat(status.acknowledged()).isEqualTo(MEMBERS);
                assertThat(status.pending()).isZero();
                assertThat(status.dead()).isZero();
                assertThat(status.cancelled()).isZero();
                assertThat(status.successSent()).isTrue();
                assertThat(status.completeSent()).isTrue();
                assertThat(callbacks).as("callbacks handled").extracting(Callback::event)
                        .containsExactlyInAnyOrder("success", "complete");
                assertThat(callbacks).allSatisfy(c -> assertThat(c.set()).isEqualTo(setId));
                Map<String, Set<Instant>> writes = new HashMap<>();
                callbacks.forEach(c -> writes.computeIfAbsent(c.id(), k -> ConcurrentHashMap.newKeySet()).add(c.enqueuedAt()));
                assertThat(writes).as("callback ids and their writes").hasSize(2)
                        .allSatisfy((id, at) -> assertThat(at).hasSize(1));
                QueueStats callbackQueue = observer.stats(CALLBACKS);
                assertThat(callbackQueue.pending() + callbackQueue.inFlight()).as("callbacks waiting").isZero();
                assertThat(callbackMs).as("ms from the last member's first delivery to the callbacks")
                        .isLessThanOrEqualTo(CALLBACK_BOUND.toMillis());
            } finally {
                instances.forEach(Instance::stop);
            }
        }
    }

    /**
     * The design's limit the class comment names, made certain: the set's master acknowledges forwards its replica never
     * gets (its replication link is cut, the replica paused so that it does not reconnect), then is SIGKILLed and the
     * replica takes over. The members of the partition on that master come back (their acks went with it: delivered
     * again, acknowledged and forwarded again); those of the partitions on the other masters had their marks deleted
     * once forwarded: nothing forwards them again, and the set counts them pending until its retention ends, its
     * callbacks never sent. Asserts what a set should do, and fails today (3,000 members: 245 left pending, all of the
     * other two partitions, queue drained, no mark left, no callback); runs only with
     * {@code -Ddelayqueue.faults.jobSetLostWrite=true}.
     */
    @Test
    void aForwardLostWithTheSetsMasterStillCompletesTheSet() throws Exception {
        assumeTrue(Boolean.getBoolean("delayqueue.faults.jobSetLostWrite"),
                "demonstrates a known limit of job sets; -Ddelayqueue.faults.jobSetLostWrite=true runs it");
        try (TestCluster cluster = TestCluster.startEmbedded(2_000)) {
            String prefix = TestRedis.uniquePrefix();
            String setId = setOnAMasterOfAPartition(cluster, prefix);
            int master = cluster.masterPortOf("{" + setId + "}");
            int replica = cluster.replicaPortOf(master).orElseThrow();
            ClientOptions options = options(prefix);
            Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
            List<Callback> callbacks = new CopyOnWriteArrayList<>();
            List<Instance> instances = new CopyOnWriteArrayList<>();
            RedissonClient observerRedis = cluster.newClient(FailoverTest::tune);
            try {
                DelayQueueClient observer = DelayQueueClient.create(observerRedis, options);
                instances.add(observeCallbacks(observerRedis, observer, callbacks));
                instances.add(start("worker", cluster, options, new MembersHandler(handled, new ConcurrentHashMap<>())));
                int members = 3_000;
                List<SendRequest> requests = new ArrayList<>(members);
                for (int i = 0; i < members; i++) {
                    requests.add(SendRequest.of("m" + i, Duration.ofMillis(ThreadLocalRandom.current().nextLong(8_000)),
                            SendOptions.id("m" + i)));
                }
                observer.sendSet(JobSet.builder().id(setId).add(QUEUES.get(0), requests)
                        .onSuccess(CALLBACKS, SendRequest.of("all acknowledged", Duration.ZERO)).build());
                awaitHandled(handled, members / 5);

                long pid = Long.parseLong(info(replica, "server", "process_id"));
                signal(pid, "STOP");
                long ackedWhenCut;
                try {
                    RedisProcesses.call(master, "CLIENT", "KILL", "TYPE", "replica");
                    ackedWhenCut = observer.setStatus(setId).orElseThrow().acknowledged();
                    Thread.sleep(1_000); // forwards the master acknowledges and its replica never gets
                } finally {
                    cluster.kill(master);
                    signal(pid, "CONT");
                }
                await("replica promoted").atMost(Duration.ofSeconds(30)).until(() -> isMaster(replica));
                cluster.restart(master);
                await("every member handled").atMost(Duration.ofSeconds(60)).until(() -> handled.size() == members);
                await("queue drained").atMost(Duration.ofSeconds(60)).until(() -> {
                    QueueStats s = observer.stats(QUEUES.get(0));
                    return s.pending() == 0 && s.inFlight() == 0;
                });
                await("marks forwarded").atMost(Duration.ofSeconds(60)).until(() -> marksLeft(observerRedis, prefix) == 0);
                // past a periodic pass of every partition (every 30 poll intervals of 1 s) with no mark left to sweep
                try {
                    await("success callback").atMost(Duration.ofSeconds(45)).until(() -> !callbacks.isEmpty());
                } catch (ConditionTimeoutException e) {
                    // reported below
                }
                SetStatus status = observer.setStatus(setId).orElseThrow();
                // the members the set still counts pending, by partition, and the master each partition is on
                Map<Object, Object> state = observerRedis.getMap(prefix + ":set:{" + setId + "}:state", StringCodec.INSTANCE)
                        .readAllMap();
                Map<Integer, Integer> pendingByPartition = new TreeMap<>();
                state.forEach((member, value) -> {
                    if ("P".equals(value)) {
                        String id = member.toString().substring(member.toString().indexOf(':') + 1);
                        pendingByPartition.merge(FailoverTest.partitionOf(id, PARTITIONS), 1, Integer::sum);
                    }
                });
                Map<Integer, Integer> partitionMasters = new TreeMap<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    partitionMasters.put(p, cluster.masterPortOf(SetScript.marksKey(QueueKeys.of(prefix, QUEUES.get(0), p,
                            PARTITIONS))));
                }
                System.out.println("JOBSET-LOST-WRITE set=" + setId + " set_master_failed=" + master + " promoted="
                        + replica + " partition_masters_now=" + partitionMasters + " total=" + status.total()
                        + " acknowledged=" + status.acknowledged() + " pending=" + status.pending()
                        + " pending_by_partition=" + pendingByPartition + " acked_when_link_cut=" + ackedWhenCut
                        + " handled=" + handled.size() + " queue=" + observer.stats(QUEUES.get(0)).pending() + "/"
                        + observer.stats(QUEUES.get(0)).inFlight() + " marks_left=" + marksLeft(observerRedis, prefix)
                        + " callbacks=" + callbacks.size());
                assertThat(status.acknowledged()).as("members the set counts acknowledged").isEqualTo(members);
                assertThat(callbacks).as("success callbacks").hasSize(1);
            } finally {
                instances.forEach(Instance::stop);
            }
        }
    }

    private static String info(int port, String section, String field) {
        for (String line : String.valueOf(RedisProcesses.call(port, "INFO", section)).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        throw new IllegalStateException("no " + field + " in INFO " + section + " of " + port);
    }

    private static void signal(long pid, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -%s %s", name, pid).isTrue();
    }

    /** Counts every handler call; takes a few ms, so that handlers are running whenever an instance is killed. */
    private record MembersHandler(Map<String, AtomicInteger> handled, Map<String, Long> firstHandledAt)
            implements MessageHandler<String> {

        @Override
        public void handle(String payload, MessageContext context) throws Exception {
            Thread.sleep(ThreadLocalRandom.current().nextInt(2, 10));
            String member = context.queue() + ":" + context.id();
            firstHandledAt.putIfAbsent(member, System.nanoTime());
            handled.computeIfAbsent(member, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    private static ClientOptions options(String prefix) {
        ClientOptions.Builder builder = ClientOptions.builder().keyPrefix(prefix).partitions(CALLBACKS, PARTITIONS);
        QUEUES.forEach(queue -> builder.partitions(queue, PARTITIONS));
        return builder.build();
    }

    /** The callbacks' instance, never killed: a callback handled twice is a callback sent twice. */
    private static Instance observeCallbacks(RedissonClient redisson, DelayQueueClient client, List<Callback> callbacks) {
        DelayQueueConsumer consumer = client.newConsumer(CALLBACKS, String.class, (payload, context) -> callbacks.add(
                new Callback(context.headers().get(JobSet.EVENT_HEADER), context.id(), context.enqueuedAt(),
                        context.headers().get(JobSet.SET_ID_HEADER))), CONSUMER_OPTIONS);
        consumer.start();
        return new Instance("observer", redisson, client, List.of(consumer));
    }

    private static Instance start(String name, TestCluster cluster, ClientOptions options, MembersHandler handler) {
        RedissonClient redisson = cluster.newClient(FailoverTest::tune);
        DelayQueueClient client = DelayQueueClient.create(redisson, options);
        List<DelayQueueConsumer> consumers = new ArrayList<>();
        for (String queue : QUEUES) {
            DelayQueueConsumer consumer = client.newConsumer(queue, String.class, handler, CONSUMER_OPTIONS);
            consumer.start();
            consumers.add(consumer);
        }
        return new Instance(name, redisson, client, consumers);
    }

    private static void awaitHandled(Map<String, AtomicInteger> handled, int count) {
        await("members handled: " + count).atMost(SPREAD.plus(Duration.ofSeconds(60))).until(() -> handled.size() >= count);
    }

    /**
     * A set id whose hash tag's master also holds a partition of the first queue: its failover then fails a set's own
     * keys and some of its members at once.
     */
    private static String setOnAMasterOfAPartition(TestCluster cluster, String prefix) {
        Set<Integer> partitionMasters = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitionMasters.add(cluster.masterPortOf(SetScript.marksKey(QueueKeys.of(prefix, QUEUES.get(0), p, PARTITIONS))));
        }
        for (int i = 0;; i++) {
            String id = "js-failover-" + i;
            if (partitionMasters.contains(cluster.masterPortOf("{" + id + "}"))) {
                return id;
            }
        }
    }

    /** Job-set marks not yet forwarded, in every partition of the members' queues. */
    private static long marksLeft(RedissonClient redisson, String prefix) {
        long left = 0;
        for (String queue : QUEUES) {
            for (int p = 0; p < PARTITIONS; p++) {
                left += redisson.getScoredSortedSet(SetScript.marksKey(QueueKeys.of(prefix, queue, p, PARTITIONS)),
                        StringCodec.INSTANCE).size();
            }
        }
        return left;
    }

    /**
     * {@code CLUSTER FAILOVER} on the replica, until it answers as master: a manual failover that does not complete
     * within its timeout (the replica catching up on a loaded machine) is aborted by Redis, and asked for again.
     */
    private static void failOver(TestCluster cluster, int replica) {
        for (int attempt = 1;; attempt++) {
            cluster.failover(replica);
            try {
                await("replica promoted").pollInterval(Duration.ofMillis(20)).atMost(Duration.ofSeconds(10))
                        .until(() -> isMaster(replica));
                return;
            } catch (ConditionTimeoutException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static boolean isMaster(int port) {
        try {
            return String.valueOf(RedisProcesses.call(port, "INFO", "replication")).contains("role:master");
        } catch (RuntimeException e) {
            return false;
        }
    }
}
