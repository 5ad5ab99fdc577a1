package io.github.delayqueue.spring.core;

import java.time.Duration;
import java.time.Instant;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.PreparedSend;
import io.github.delayqueue.core.PreparedSet;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.VersionedIntent;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The auto-configured {@link io.github.delayqueue.spring.DelayQueueTemplate} when spring-tx is on the
 * class path and {@code delayqueue.producer.transaction-aware} is on: inside an active transaction a
 * send is checked and encoded at the call and written after the commit ({@link AfterCommitSends}),
 * dropped on rollback; outside one it is written at once. Selected by the auto-configuration's
 * {@code @ConditionalOnClass}, so without spring-tx this class is never loaded.
 *
 * <p>With an outbox ({@code delayqueue.producer.outbox.enabled}), a send inside a transaction on the
 * outbox's database is also written to the outbox table in that transaction, so the message exists if and
 * only if the transaction commits. A send inside a read-only transaction is then refused at the call (its
 * row could not be written); one inside a transaction on another resource is written after the commit
 * without the outbox, and logged once.
 *
 * <p>A job set made inside a transaction is prepared at the call (checked and encoded, its ids final) and follows the
 * transaction as a send does, through the outbox too ({@link #sendSet(QueueCatalog.Queue, JobSet)}). Members added to
 * a set and chains are checked at the call (a target set read), given their final ids, and written after the commit,
 * dropped on rollback; never through the outbox.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class TransactionAwareDelayQueueTemplate extends DefaultDelayQueueTemplate {

    private static final Logger log = LoggerFactory.getLogger(TransactionAwareDelayQueueTemplate.class);

    private final @Nullable SendOutbox outbox;
    private final AtomicBoolean warnedOutsideOutbox = new AtomicBoolean();
    private final AtomicBoolean warnedSetsOutsideOutbox = new AtomicBoolean();

    public TransactionAwareDelayQueueTemplate(QueueCatalog catalog) {
        this(catalog, null, SendObserver.NONE);
    }

    /**
     * With {@code outbox}, sends inside a transaction on the outbox's database are kept in it until they reach Redis.
     * {@code observer} wraps every send: inside a transaction, the check and deferral (the trace context is the caller's).
     */
    public TransactionAwareDelayQueueTemplate(QueueCatalog catalog, @Nullable SendOutbox outbox, SendObserver observer) {
        super(catalog, observer);
        this.outbox = outbox;
    }

    @Override
    List<String> send(QueueCatalog.Queue queue, List<SendRequest> requests) {
        if (AfterCommitSends.inTransaction()) {
            PreparedSend prepared = queue.client().prepare(queue.name(), requests); // checked and encoded now
            AfterCommitSends.defer(queue, prepared, outboxOfCurrentTransaction(queue));
            return prepared.ids();
        }
        SendOutbox outbox = this.outbox;
        if (outbox != null && afterCompletion()) {
            return sendAfterCompletion(queue, requests, outbox);
        }
        return super.send(queue, requests);
    }

    @Override
    List<String> addToSet(QueueCatalog.Queue queue, String setId, List<SendRequest> requests) {
        if (!AfterCommitSends.inTransaction()) {
            return super.addToSet(queue, setId, requests);
        }
        JobSet.checkId(setId);
        if (requests == null || requests.isEmpty()) {
            throw new IllegalArgumentException("requests must not be null or empty");
        }
        List<String> ids = check(queue.client(), queue.name(), requests, "an add to a set");
        requireOpen(queue.client(), setId);
        List<SendRequest> withIds = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            SendRequest request = requests.get(i);
            withIds.add(request.withOptions(request.options().withId(ids.get(i))));
        }
        warnOutsideOutbox("An add to a job set");
        AfterCommitSends.defer("adding to job set '" + setId + "' on queue '" + queue.name() + "'", ids,
                () -> queue.client().addToSet(setId, queue.name(), withIds));
        return ids;
    }

    @Override
    List<String> sendChain(DelayQueueClient client, Chain chain) {
        if (!AfterCommitSends.inTransaction()) {
            return super.sendChain(client, chain);
        }
        Chain withId = chain.id() != null ? chain : chain.id(newId());
        List<String> ids = new ArrayList<>();
        for (int k = 0; k < withId.steps().size(); k++) {
            Chain.Step step = withId.steps().get(k);
            client.prepare(step.queue(), List.of(step.message())); // checked and encoded now
            String given = step.message().options().id();
            ids.add(given != null ? given : withId.id() + ":" + k);
        }
        if (new HashSet<>(ids).size() != ids.size()) {
            throw new IllegalArgumentException("two steps of a chain have the same id");
        }
        warnOutsideOutbox("A chain");
        AfterCommitSends.defer("sending chain '" + withId.id() + "'", ids, () -> client.sendChain(withId));
        return ids;
    }

    /**
     * Checks (and encodes) a set's requests on one queue in batches the client takes, as its send will; returns their
     * ids, generated where none was given.
     */
    private static List<String> check(DelayQueueClient client, String queue, List<SendRequest> requests, String what) {
        List<String> ids = new ArrayList<>(requests.size());
        int batch = client.options().maxBatchSize();
        for (int from = 0; from < requests.size(); from += batch) {
            ids.addAll(client.prepare(queue, requests.subList(from, Math.min(requests.size(), from + batch))).ids());
        }
        Set<String> seen = new HashSet<>();
        for (String id : ids) {
            if (!seen.add(id)) {
                throw new IllegalArgumentException(what + " holds message id '" + id + "' twice on queue '" + queue + "'");
            }
        }
        return ids;
    }

    /** A set that exists and takes members: read at the call, so that a deferred write fails where the send would. */
    private static void requireOpen(DelayQueueClient client, String setId) {
        Optional<SetStatus> status = client.setStatus(setId, 0);
        if (status.isEmpty()) {
            throw new IllegalArgumentException("no job set '" + setId + "' (never sent, or past its retention)");
        }
        if (status.get().completeSent()) {
            throw new IllegalStateException("job set '" + setId + "' is complete (its complete callback was sent): "
                    + "it takes no more members");
        }
    }

    /** A set id as the engine generates one: 12 random bytes, base64url. */
    private static String newId() {
        byte[] bytes = new byte[12];
        ByteBuffer.wrap(bytes).putLong(ThreadLocalRandom.current().nextLong())
                .putInt(ThreadLocalRandom.current().nextInt());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * With an outbox, an add to a set or a chain deferred by a transaction is written after the commit without it
     * (a set itself goes through the outbox): logged once.
     */
    private void warnOutsideOutbox(String what) {
        if (this.outbox != null && this.warnedSetsOutsideOutbox.compareAndSet(false, true)) {
            log.warn("{} was made in a transaction with the outbox on: adds to job sets and chains are not written to "
                    + "the outbox but to Redis after the commit (a crash or a Redis failure right after the commit loses "
                    + "them; an add or a chain sent again with the same ids completes it). Logged once.", what);
        }
    }

    /**
     * Whether the thread runs the completion callbacks of a transaction that has ended: Spring clears the
     * synchronizations before it calls {@code afterCompletion} (where {@code @TransactionalEventListener}s of the
     * default phase, AFTER_COMMIT, run), while the transaction's resources are still bound.
     */
    private static boolean afterCompletion() {
        return TransactionSynchronizationManager.isActualTransactionActive()
                && !TransactionSynchronizationManager.isSynchronizationActive();
    }

    /**
     * A send from a transaction's completion callbacks (an {@code @TransactionalEventListener}): the transaction has
     * committed, so its rows are written in a transaction of their own, then the messages to Redis under them; if
     * Redis fails, the relay sends them and this returns normally, as the after-commit write of a transaction's own
     * sends does.
     */
    private List<String> sendAfterCompletion(QueueCatalog.Queue queue, List<SendRequest> requests, SendOutbox outbox) {
        PreparedSend prepared = queue.client().prepare(queue.name(), requests);
        List<Long> rows = AfterCommitSends.writeAlone(queue, prepared, outbox);
        if (rows == null) {
            return queue.client().send(prepared);
        }
        try {
            AfterCommitSends.apply(queue, prepared, rows, outbox);
        } catch (RuntimeException e) {
            log.warn("A send to queue '{}' after its transaction completed failed; message ids {} stay in the outbox and "
                    + "its relay will send them", queue.name(), prepared.ids(), e);
        }
        return prepared.ids();
    }

    /**
     * Sends a job set through {@code queue}'s client (the client of the set's queues), following the transaction as a
     * send does: inside one, the set is checked and encoded at the call (bad input throws there, so the transaction
     * fails), written after the commit and dropped on rollback; with the outbox covering the transaction, its rows
     * (opening, members, seal) are written in it, so the set exists if and only if the transaction commits, and the
     * relay completes it if the write after the commit does not. From a transaction's completion callbacks, its rows
     * are written in a transaction of their own first; outside a transaction it is sent at once. Returns the set's id.
     * <p>
     * The transactional path of {@code DelayQueueTemplate.sendSet(JobSet)}: the template's implementation calls it
     * with the declared queue of the set's first member.
     */
    @Override
    public String sendSet(QueueCatalog.Queue queue, JobSet set) {
        if (AfterCommitSends.inTransaction()) {
            PreparedSet prepared = queue.client().prepareSet(set); // checked and encoded now
            if (set.parent() != null) {
                requireOpen(queue.client(), set.parent()); // a missing parent fails the call, not the relay later
            }
            SendOutbox outbox = outboxOfCurrentTransaction(queue);
            if (outbox != null) {
                requireDeclared(queue, set);
            }
            AfterCommitSends.deferSet(queue, prepared, outbox);
            return prepared.id();
        }
        SendOutbox outbox = this.outbox;
        if (outbox != null && afterCompletion()) {
            PreparedSet prepared = queue.client().prepareSet(set);
            requireDeclared(queue, set);
            SendOutbox.SetRows rows = AfterCommitSends.writeSetAlone(queue, prepared, outbox);
            if (rows == null) {
                return queue.client().send(prepared);
            }
            try {
                AfterCommitSends.applySet(queue, prepared, rows, outbox);
            } catch (RuntimeException e) {
                log.warn("Job set '{}', sent after its transaction completed, could not be written to Redis now; its rows "
                        + "stay in the outbox and its relay completes it", prepared.id(), e);
            }
            return prepared.id();
        }
        return queue.client().sendSet(set);
    }

    /**
     * A set's members must be on queues this application declares, on {@code queue}'s client: the relay finds a
     * member row's client by its queue.
     */
    private void requireDeclared(QueueCatalog.Queue queue, JobSet set) {
        for (var members : set.members().entrySet()) {
            if (members.getValue().isEmpty()) {
                continue;
            }
            QueueCatalog.Queue declared = this.catalog.find(members.getKey()).orElse(null);
            if (declared == null || declared.client() != queue.client()) {
                throw new IllegalArgumentException("Job set " + (set.id() == null ? "" : "'" + set.id() + "' ")
                        + "has members on queue '" + members.getKey() + "', which this application "
                        + (declared == null ? "does not declare" : "serves with another Redis client than queue '"
                                + queue.name() + "'")
                        + ": with delayqueue.producer.outbox.enabled=true a set's members are kept in the outbox and "
                        + "its relay sends each on the client of its declared queue. Declare the queue (a DelayQueueCode) "
                        + "on the same client.");
            }
        }
    }

    /** With an outbox, through a row of its own (see {@link #changeThroughOutbox}). */
    @Override
    boolean cancel(QueueCatalog.Queue queue, String id) {
        SendOutbox outbox = this.outbox;
        if (outbox == null) {
            return super.cancel(queue, id);
        }
        return changeThroughOutbox(queue, outbox, VersionedIntent.Kind.CANCEL, id, null, null);
    }

    /** With an outbox, through a row of its own (see {@link #changeThroughOutbox}). */
    @Override
    boolean reschedule(QueueCatalog.Queue queue, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
        SendOutbox outbox = this.outbox;
        if (outbox == null) {
            return super.reschedule(queue, id, delay, dueAt);
        }
        return changeThroughOutbox(queue, outbox, VersionedIntent.Kind.RESCHEDULE, id, delay, dueAt);
    }

    /**
     * A cancel or reschedule with the outbox on, at once as always, but as an intent with a version: its row is
     * written (and committed) in a transaction of its own, whose key orders it after every send already written to
     * the outbox, then applied to Redis under that key. So a send of the same id still in the outbox (its
     * after-commit write failed) that the relay writes later is refused, instead of bringing a cancelled message
     * back. If Redis fails, this throws, and the row stays: the relay applies it when Redis is back.
     */
    private boolean changeThroughOutbox(QueueCatalog.Queue queue, SendOutbox outbox, VersionedIntent.Kind kind, String id,
            @Nullable Duration delay, @Nullable Instant dueAt) {
        queue.client().checkVersioned(queue.name(), List.of(intent(kind, id, delay, dueAt, 1))); // bad input: no row
        long row = outbox.writeAlone(queue.name(), kind, id, delay, dueAt);
        VersionedIntent.Outcome outcome;
        try {
            outcome = queue.client().applyVersioned(queue.name(), List.of(intent(kind, id, delay, dueAt, row)),
                    outbox.versionRetention()).get(0);
        } catch (DelayQueueException e) {
            throw new DelayQueueException("could not " + kind.name().toLowerCase(Locale.ROOT) + " '" + id + "' in queue '"
                    + queue.name() + "' now; it is kept in the outbox and its relay applies it when Redis is back: " + e, e);
        }
        outbox.sent(List.of(row));
        return outcome == VersionedIntent.Outcome.APPLIED;
    }

    private static VersionedIntent intent(VersionedIntent.Kind kind, String id, @Nullable Duration delay,
            @Nullable Instant dueAt, long version) {
        return kind == VersionedIntent.Kind.CANCEL ? VersionedIntent.cancel(id, version)
                : VersionedIntent.reschedule(id, delay, dueAt, version);
    }

    private @Nullable SendOutbox outboxOfCurrentTransaction(QueueCatalog.Queue queue) {
        SendOutbox outbox = this.outbox;
        if (outbox == null) {
            return null;
        }
        if (!outbox.coversCurrentTransaction()) {
            if (this.warnedOutsideOutbox.compareAndSet(false, true)) {
                log.warn("A send to queue '{}' was made in a transaction that does not run on the outbox's DataSource: "
                        + "it is written to Redis after the commit without the outbox (so a crash or a Redis failure "
                        + "right after the commit loses it). Logged once.", queue.name());
            }
            return null;
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            throw new IllegalStateException("Cannot send to queue '" + queue.name() + "' in a read-only transaction: "
                    + "with delayqueue.producer.outbox.enabled=true the message is written to the outbox table in the "
                    + "sending transaction. Send from a read-write transaction.");
        }
        return outbox;
    }
}
