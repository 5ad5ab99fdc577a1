package io.github.delayqueue.core;

import java.lang.reflect.Type;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.handler.State;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import io.github.delayqueue.core.internal.Checks;
import io.github.delayqueue.core.migration.ImportLease;
import io.github.delayqueue.core.migration.RDelayedQueueSource;
import io.github.delayqueue.core.protocol.Partitions;
import io.github.delayqueue.core.protocol.QueueKeys;
import io.github.delayqueue.core.protocol.QueueOps;
import io.github.delayqueue.core.protocol.QueueRoute;

/**
 * Moves the jobs still pending in a Redisson {@code RDelayedQueue} into a delayqueue queue, once, keeping each
 * job's due time. For applications switching from {@code RDelayedQueue} (deprecated by Redisson) to delayqueue;
 * see {@code docs/guides/migrating-from-rdelayedqueue.md}.
 *
 * <pre>{@code
 * ImportReport report = RDelayedQueueImporter.builder(client)
 *         .from("orderTimeouts", new Kryo5Codec())      // the RDelayedQueue's name and the codec it was written with
 *         .to("ORDER_PAYMENT_TIMEOUT")
 *         .mapping(value -> new PaymentTimeout((Long) value))
 *         .build()
 *         .run();
 * }</pre>
 *
 * <p>What a run does, in batches of {@link Builder#batchSize(int) batchSize} entries:
 * <ol>
 *   <li>values Redisson's transfer task already moved to the destination queue (due, waiting for {@code take()})
 *       are put back among the delayed entries, due now, in one atomic script per batch, so that every entry has
 *       an identity and goes the same way;</li>
 *   <li>each entry of Redisson's delayed list is decoded with the application's Redisson {@link Codec}, turned
 *       into a payload by the {@link Builder#mapping mapping}, and written to the target queue due at its
 *       Redisson due time ({@code sendAt}: due times already past are delivered at once, none is delivered
 *       before its instant by the Redis clock), under a deterministic id (a hash of the stored entry, or
 *       {@link Builder#ids yours});</li>
 *   <li>only after that write returned, the batch's entries are removed from Redisson's timeout set and list in
 *       one atomic script, each only if still there.</li>
 * </ol>
 * The write records each id in an import ledger in the same script, so a run interrupted at any point (crash,
 * Redis error) and run again neither loses a job nor delivers one twice, even if the first run's message was
 * delivered and acknowledged meanwhile: an entry still in Redisson whose id is in the ledger is only removed.
 * An entry that cannot be imported (it does not decode, the mapping fails, its payload does not bind to the
 * {@link Builder#payloadType payload type} or breaks a send check) is reported with its reason and left in
 * Redisson's structures; nothing is dropped silently.
 *
 * <p>Stop the application's old Redisson consumers, producers and transfer task first: a transfer task still
 * running can move an entry to the destination queue between this import's read and its removal, and a
 * {@code take()} then runs that job a second time. Imports run one at a time per key prefix, enforced by a lease
 * in Redis ({@link #run()}): two runs at once, in one JVM or on two instances, would write a job again after the
 * other removed it and cleaned its ledger. Entries added to Redisson's structures during a run wait for the next
 * run.
 *
 * <p>An importer is not thread-safe: call {@link #run()} from one thread; build one per source and target.
 *
 * <p>The codec decides what decoding may instantiate: {@code SerializationCodec} and {@code Kryo5Codec} read class
 * names from the stored bytes. The data is your own application's, in your own Redis; where the codec can take
 * an allow-list and still read what was written ({@code SerializationCodec(classLoader, allowedClasses)} reads
 * what a plain {@code SerializationCodec} wrote), give it one. Pass the codec configured exactly as the writer's:
 * a {@code Kryo5Codec} with an allow-list read entries written by the default {@code Kryo5Codec} into wrong
 * values without an error.
 */
public final class RDelayedQueueImporter {

    /** Largest batch accepted. */
    public static final int MAX_BATCH_SIZE = 1_000;

    /** Batch size unless set. */
    public static final int DEFAULT_BATCH_SIZE = 100;

    /** Failures listed in a report (all are counted). */
    static final int MAX_FAILURES_REPORTED = 100;

    private static final Logger log = LoggerFactory.getLogger(RDelayedQueueImporter.class);

    /** Test seam: called with the entries handled so far at a point of a batch's progress. */
    interface Step {
        void reached(long entriesSoFar);
    }

    private final DelayQueueClient client;
    private final RDelayedQueueSource source;
    private final Codec codec;
    private final String target;
    private final Function<Object, ?> mapping;
    private final @Nullable Function<Object, String> ids;
    private final @Nullable Type payloadType;
    private final int batchSize;
    private final boolean dryRun;
    private final Duration waitForOtherImport;
    private Duration leaseTtl = ImportLease.DEFAULT_TTL;
    private @Nullable ImportLease lease;
    private Step afterWrite = entries -> {
    };
    private Step afterRemove = entries -> {
    };

    private RDelayedQueueImporter(Builder b, String sourceName, Codec codec, String target) {
        this.client = b.client;
        this.source = new RDelayedQueueSource(b.client.redisson(), sourceName);
        this.codec = codec;
        this.target = target;
        this.mapping = b.mapping;
        this.ids = b.ids;
        this.payloadType = b.payloadType;
        this.batchSize = b.batchSize;
        this.dryRun = b.dryRun;
        this.waitForOtherImport = b.waitForOtherImport;
    }

    /** An importer into a queue of {@code client}. */
    public static Builder builder(DelayQueueClient client) {
        Checks.require(client != null, "client must not be null");
        return new Builder(client);
    }

    /** Test seam: what happens between a batch's write and its removal from Redisson. */
    RDelayedQueueImporter afterWrite(Step hook) {
        this.afterWrite = hook;
        return this;
    }

    /** Test seam: how long the import lease lasts without renewal. */
    RDelayedQueueImporter leaseTtl(Duration ttl) {
        this.leaseTtl = ttl;
        return this;
    }

    /** Test seam: what happens between a batch's removal from Redisson and the cleanup of its ledger ids. */
    RDelayedQueueImporter afterRemove(Step hook) {
        this.afterRemove = hook;
        return this;
    }

    /**
     * Runs the import (or, for a dry run, reads and checks every entry and writes nothing). Restartable: run it
     * again after an interruption, or after fixing what made entries fail.
     *
     * <p>A run (not a dry run) first takes the import lease of the client's key prefix, so that imports run one at
     * a time whichever JVM runs them: it waits for another import to end up to
     * {@link Builder#waitForOtherImport waitForOtherImport} (default: not at all), keeps the lease while it runs
     * and releases it when it ends, however it ends.
     *
     * @throws ImportInProgressException if another import holds the lease (then nothing was read or written)
     * @throws DelayQueueException       if Redis fails, or the lease was lost while running; what was imported and
     *                                   removed until then stays so, and a new run carries on
     */
    public ImportReport run() {
        QueueRoute route = client.queueRoute(target);
        Tally tally = new Tally();
        try {
            if (!dryRun) {
                lease = ImportLease.acquire(client.redisson(), ImportLease.key(client.options().keyPrefix()),
                        "import of RDelayedQueue '" + source.name() + "' into queue '" + target + "'", leaseTtl,
                        waitForOtherImport);
            }
            if (dryRun) {
                checkReady(tally);
            } else {
                tally.ready = moveReady();
            }
            if (!dryRun) {
                route.check();
            }
            importDelayed(route, tally);
            long remaining = source.delayedSize() + source.readySize();
            if (!dryRun && remaining == 0) {
                // nothing left to import from: ids recorded by a run that stopped between removal and cleanup
                lease.check();
                for (QueueOps ops : route.parts()) {
                    client.redisson().getKeys().delete(ops.keys().importLedger());
                }
            }
            ImportReport report = new ImportReport(source.name(), target, dryRun, tally.found, tally.ready,
                    tally.dueAlready, tally.imported, tally.alreadyImported, tally.removed, tally.failed,
                    tally.failures, remaining);
            log.info("{} from RDelayedQueue '{}' into queue '{}': found {}, imported {}, already imported {}, "
                    + "removed {}, failed {}, remaining {}", dryRun ? "Dry run of an import" : "Imported",
                    source.name(), target, report.found(), report.imported(), report.alreadyImported(),
                    report.removed(), report.failed(), report.remaining());
            return report;
        } catch (IllegalArgumentException | DelayQueueException | PartitionCountException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DelayQueueException("could not import RDelayedQueue '" + source.name() + "' into queue '"
                    + target + "' (found " + tally.found + ", imported " + tally.imported + ", removed "
                    + tally.removed + " so far; run again to carry on): " + e, e);
        } finally {
            if (lease != null) {
                lease.close();
                lease = null;
            }
        }
    }

    /** Puts the destination queue's values back among the delayed entries, due now; bounded by its size at the start. */
    private long moveReady() {
        long atStart = source.readySize();
        long moved = 0;
        while (moved < atStart) {
            int n = (int) Math.min(batchSize, atStart - moved);
            List<byte[]> randomIds = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] id = new byte[8]; // as Redisson's offer: 8 random bytes keep equal values distinct entries
                ThreadLocalRandom.current().nextBytes(id);
                randomIds.add(id);
            }
            long m = source.moveReady(randomIds);
            if (m == 0) {
                break;
            }
            moved += m;
        }
        return moved;
    }

    /** Dry run: checks the destination queue's values as they would be imported (due now). */
    private void checkReady(Tally tally) {
        long size = source.readySize();
        for (long offset = 0; offset < size; offset += batchSize) {
            List<byte[]> values = source.readReady(offset, batchSize);
            if (values.isEmpty()) {
                break;
            }
            for (int i = 0; i < values.size(); i++) {
                tally.found++;
                tally.ready++;
                tally.dueAlready++;
                // due at once once imported; the JVM clock only feeds the send checks here
                candidate("destination[" + (offset + i) + "]", values.get(i), Instant.now().toEpochMilli(), tally);
            }
        }
    }

    private void importDelayed(QueueRoute route, Tally tally) {
        long limit = source.delayedSize(); // entries offered during the run wait for the next one: the loop ends
        long offset = 0; // entries left behind (failed) stay at the head of the list
        long seen = 0;
        while (seen < limit) {
            int n = (int) Math.min(batchSize, limit - seen);
            RDelayedQueueSource.Page page = source.read(offset, n);
            if (page.entries().isEmpty()) {
                break;
            }
            seen += page.entries().size();
            List<Candidate> batch = new ArrayList<>(page.entries().size());
            for (RDelayedQueueSource.Entry e : page.entries()) {
                tally.found++;
                String hashId = hashId(e.packed());
                Candidate c = null;
                if (e.dueMs() == null) {
                    tally.fail(hashId, null, "in Redisson's list " + RDelayedQueueSource.prefixName("redisson_delay_queue",
                            source.name()) + " but not in its timeout set: no due time");
                } else {
                    if (e.dueMs() <= page.redisNowMs()) {
                        tally.dueAlready++;
                    }
                    if (e.value() == null) {
                        tally.fail(hashId, Instant.ofEpochMilli(e.dueMs()),
                                "not an RDelayedQueue entry: it does not unpack as Redisson packs entries");
                    } else {
                        c = candidate(hashId, e.value(), e.dueMs(), tally);
                    }
                }
                if (c == null) {
                    offset++;
                } else {
                    batch.add(c.withPacked(e.packed()));
                }
            }
            if (dryRun) {
                offset += batch.size();
            } else if (!batch.isEmpty()) {
                lease.check();
                List<List<Integer>> groups = route.byPartition(batch.stream().map(c -> c.id).toList());
                for (int p = 0; p < groups.size(); p++) {
                    List<Candidate> part = new ArrayList<>(groups.get(p).size());
                    for (int i : groups.get(p)) {
                        part.add(batch.get(i));
                    }
                    if (!part.isEmpty()) {
                        write(route.part(p), part, tally);
                    }
                }
                afterWrite.reached(tally.imported + tally.alreadyImported);
                List<byte[]> packed = new ArrayList<>(batch.size());
                List<List<Object>> written = new ArrayList<>(route.count());
                for (int p = 0; p < route.count(); p++) {
                    written.add(new ArrayList<>());
                }
                for (Candidate c : batch) {
                    packed.add(c.packed);
                    written.get(Partitions.of(c.id, route.count())).add(c.id);
                }
                tally.removed += source.remove(packed);
                afterRemove.reached(tally.imported + tally.alreadyImported);
                lease.check();
                // removed from Redisson: the ledger no longer needs these ids (a crash before this line leaves
                // them until a run finds nothing left to import)
                for (int p = 0; p < route.count(); p++) {
                    if (!written.get(p).isEmpty()) {
                        client.redisson().getMap(route.part(p).keys().importLedger(), StringCodec.INSTANCE)
                                .fastRemove(written.get(p).toArray());
                    }
                }
            }
        }
    }

    /** Writes a batch in script calls bounded as {@code sendAll}'s are. */
    private static void write(QueueOps ops, List<Candidate> batch, Tally tally) {
        int from = 0;
        while (from < batch.size()) {
            int to = from;
            long bytes = 0;
            List<String> triples = new ArrayList<>();
            while (to < batch.size() && to - from < DelayQueueClient.SCRIPT_BATCH
                    && (to == from || bytes + batch.get(to).bytes <= QueueOps.SCRIPT_BYTES)) {
                bytes += batch.get(to).bytes;
                triples.addAll(batch.get(to).triple);
                to++;
            }
            for (Object flag : ops.importBatch(triples)) {
                if (((Number) flag).longValue() == 1) {
                    tally.imported++;
                } else {
                    tally.alreadyImported++;
                }
            }
            from = to;
        }
    }

    /** Decodes, maps and checks one value; null (and a failure tallied) if it cannot be imported. */
    private @Nullable Candidate candidate(String entry, byte[] value, long dueMs, Tally tally) {
        Instant dueAt = Instant.ofEpochMilli(dueMs);
        Object decoded;
        try {
            decoded = decode(value);
        } catch (Exception | LinkageError e) {
            tally.fail(entry, dueAt, "could not decode with " + codec.getClass().getName() + ": " + e);
            return null;
        }
        if (decoded == null) {
            tally.fail(entry, dueAt, "decoded to null with " + codec.getClass().getName());
            return null;
        }
        Object payload;
        try {
            payload = mapping.apply(decoded);
        } catch (RuntimeException e) {
            tally.fail(entry, dueAt, "mapping failed for a " + decoded.getClass().getName() + ": " + e);
            return null;
        }
        String id;
        try {
            id = ids == null ? entry : ids.apply(decoded);
        } catch (RuntimeException e) {
            tally.fail(entry, dueAt, "ids function failed for a " + decoded.getClass().getName() + ": " + e);
            return null;
        }
        if (payload == null) {
            tally.fail(entry, dueAt, "mapping returned null for a " + decoded.getClass().getName());
            return null;
        }
        if (payloadType != null) {
            String reason = bindFailure(payload);
            if (reason != null) {
                tally.fail(entry, dueAt, reason);
                return null;
            }
        }
        PreparedSend prepared;
        try {
            prepared = client.prepare(target, List.of(SendRequest.at(payload, dueAt, SendOptions.id(id))));
        } catch (IllegalArgumentException e) {
            tally.fail(entry, dueAt, "rejected by the send checks: " + e.getMessage());
            return null;
        }
        PreparedSend.Run run = prepared.runs.get(0);
        return new Candidate(id, List.copyOf(run.triples()), run.bytes().get(0), new byte[0]);
    }

    /** Why {@code payload}'s JSON does not bind to {@link #payloadType}, or null if it does. */
    private @Nullable String bindFailure(Object payload) {
        PayloadCodec json = client.options().codec();
        try {
            Object back = json.decode(json.encode(payload), payloadType);
            return back == null ? "payload JSON of a " + payload.getClass().getName() + " binds to null as "
                    + payloadType.getTypeName() : null;
        } catch (RuntimeException e) {
            return "payload of a " + payload.getClass().getName() + " does not bind to the queue's payload type "
                    + payloadType.getTypeName() + ": " + e;
        }
    }

    private Object decode(byte[] value) throws Exception {
        ByteBuf buf = Unpooled.wrappedBuffer(value);
        try {
            return codec.getValueDecoder().decode(buf, new State());
        } finally {
            buf.release();
        }
    }

    /**
     * The id of an entry: a hash of its packed bytes, which hold Redisson's 8 random bytes, so equal values offered
     * twice stay two jobs, and a re-run finds the same id. 128 bits of SHA-256, URL-safe: {@code rdq-} + 22 chars.
     */
    static String hashId(byte[] packed) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(packed);
            return "rdq-" + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** One entry ready to write: its id, its enqueue triple and bytes, and the packed entry to remove. */
    private record Candidate(String id, List<String> triple, int bytes, byte[] packed) {
        Candidate withPacked(byte[] p) {
            return new Candidate(id, triple, bytes, p);
        }
    }

    private static final class Tally {
        long found;
        long ready;
        long dueAlready;
        long imported;
        long alreadyImported;
        long removed;
        long failed;
        final List<ImportReport.Failure> failures = new ArrayList<>();

        void fail(String entry, @Nullable Instant dueAt, String reason) {
            failed++;
            if (failures.size() < MAX_FAILURES_REPORTED) {
                failures.add(new ImportReport.Failure(entry, dueAt, reason));
            }
        }
    }

    /**
     * Builder of an {@link RDelayedQueueImporter}; {@link #from} and {@link #to} are required. {@link #build()}
     * checks everything, so a bad argument fails there, before anything is read or written.
     */
    public static final class Builder {
        private final DelayQueueClient client;
        private @Nullable String sourceName;
        private @Nullable Codec codec;
        private @Nullable String target;
        private Function<Object, ?> mapping = Function.identity();
        private @Nullable Function<Object, String> ids;
        private @Nullable Type payloadType;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private boolean dryRun;
        private Duration waitForOtherImport = Duration.ZERO;

        private Builder(DelayQueueClient client) {
            this.client = client;
        }

        /**
         * The source: the name given to {@code redisson.getDelayedQueue(redisson.getBlockingQueue(name))} (the
         * destination queue's name) and the codec the application wrote its values with (Redisson's default is
         * {@code Kryo5Codec}; the one in its {@code Config}, or the one passed to {@code getBlockingQueue}).
         */
        public Builder from(String redissonQueueName, Codec codec) {
            this.sourceName = redissonQueueName;
            this.codec = codec;
            return this;
        }

        /** The delayqueue queue to import into. */
        public Builder to(String queue) {
            this.target = queue;
            return this;
        }

        /** Turns a decoded value into the payload to send (default: the value itself). Returning null fails the entry. */
        public Builder mapping(Function<Object, ?> mapping) {
            Checks.require(mapping != null, "mapping must not be null");
            this.mapping = mapping;
            return this;
        }

        /**
         * Ids from the decoded value, for example {@code value -> "order-" + value}, so that the application's
         * {@code cancel(queue, id)} finds imported jobs. Entries that get an id already imported, or live in the
         * target queue, are not written again (the first one in Redisson's offer order wins) and are removed.
         * Default: a hash of the stored entry, {@code rdq-<22 characters>}, unique per entry.
         */
        public Builder ids(Function<Object, String> ids) {
            Checks.require(ids != null, "ids must not be null");
            this.ids = ids;
            return this;
        }

        /**
         * The type the target queue's handler takes: each payload's JSON must bind to it, or the entry fails with
         * the reason and stays in Redisson (instead of going to the dead letters at delivery). Default: not checked.
         */
        public Builder payloadType(Type payloadType) {
            Checks.require(payloadType != null, "payloadType must not be null");
            this.payloadType = payloadType;
            return this;
        }

        /** Entries read, written and removed per round trip, 1 to {@value #MAX_BATCH_SIZE} (default {@value #DEFAULT_BATCH_SIZE}). */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /**
         * How long {@link RDelayedQueueImporter#run()} waits for another import under the same key prefix (in this
         * JVM or another) to end before it gives up with an {@link ImportInProgressException}; default zero: it
         * gives up at once. An application that runs the import on every instance at startup sets a wait longer
         * than an import takes: the instances then import one after another, and the later ones find nothing left.
         */
        public Builder waitForOtherImport(Duration maxWait) {
            Checks.require(maxWait != null && !maxWait.isNegative(), "waitForOtherImport must not be null or negative, was "
                    + maxWait);
            this.waitForOtherImport = maxWait;
            return this;
        }

        /** Whether to only read, check and count, writing nothing anywhere (default false). */
        public Builder dryRun(boolean dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        /**
         * @throws IllegalArgumentException if the source or target is missing or invalid, or the batch size is out
         *                                  of range, or the payload type cannot be built by the client's codec
         */
        public RDelayedQueueImporter build() {
            Checks.require(sourceName != null && !sourceName.isBlank(), "the Redisson queue name must not be null or blank");
            Checks.require(codec != null, "the Redisson codec must not be null (Redisson's default is Kryo5Codec)");
            Checks.require(target != null, "the target queue must not be null");
            QueueKeys.validateName(target);
            Checks.require(batchSize >= 1 && batchSize <= MAX_BATCH_SIZE,
                    "batchSize must be between 1 and " + MAX_BATCH_SIZE + ", was " + batchSize);
            for (int i = 0; i < sourceName.length(); i++) {
                Checks.require(!Character.isISOControl(sourceName.charAt(i)),
                        "the Redisson queue name must not contain control characters");
            }
            if (payloadType != null) {
                client.options().codec().checkDecodable(payloadType);
            }
            return new RDelayedQueueImporter(this, sourceName, codec, target);
        }
    }
}
