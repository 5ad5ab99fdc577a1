package io.github.delayqueue.spring.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;
import org.jspecify.annotations.Nullable;

/**
 * The auto-configured {@link DelayQueueTemplate}: declared codes only, every call acts on Redis at once.
 * {@link TransactionAwareDelayQueueTemplate} defers sends made inside a transaction.
 *
 * <p>Job sets and chains go through the observer as sends do: one {@code delayqueue.send} observation per queue of
 * their members (or steps), each nested in the one before, so that every member carries the trace context of its
 * queue's observation. Callbacks are sent later, by the consumer whose settle makes them due, with the headers they
 * were built with.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public class DefaultDelayQueueTemplate implements DelayQueueTemplate {

    final QueueCatalog catalog;
    private final SendObserver observer;

    public DefaultDelayQueueTemplate(QueueCatalog catalog) {
        this(catalog, SendObserver.NONE);
    }

    /** {@code observer} wraps every send (the {@code delayqueue.send} observation). */
    public DefaultDelayQueueTemplate(QueueCatalog catalog, SendObserver observer) {
        this.catalog = catalog;
        this.observer = observer;
    }

    @Override
    public String send(DelayQueueCode code, Object payload, Duration delay) {
        return send(code, payload, delay, SendOptions.none());
    }

    @Override
    public String send(DelayQueueCode code, Object payload, Duration delay, SendOptions options) {
        return sendAll(code, List.of(SendRequest.of(payload, delay, options))).get(0);
    }

    @Override
    public String sendAt(DelayQueueCode code, Object payload, Instant dueAt) {
        return sendAt(code, payload, dueAt, SendOptions.none());
    }

    @Override
    public String sendAt(DelayQueueCode code, Object payload, Instant dueAt, SendOptions options) {
        return sendAll(code, List.of(SendRequest.at(payload, dueAt, options))).get(0);
    }

    @Override
    public List<String> sendAll(DelayQueueCode code, List<SendRequest> requests) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        if (this.observer == SendObserver.NONE) {
            return send(queue, requests);
        }
        return this.observer.observe(queue.name(), requests, observed -> send(queue, observed));
    }

    /** Writes the requests of a declared queue; the only step a subclass changes. */
    List<String> send(QueueCatalog.Queue queue, List<SendRequest> requests) {
        return queue.client().sendAll(queue.name(), requests);
    }

    @Override
    public String sendSet(JobSet set) {
        if (set == null) {
            throw new IllegalArgumentException("set must not be null");
        }
        List<String> queues = new ArrayList<>(set.members().keySet());
        for (JobSet.Callback callback : new JobSet.Callback[] {set.onSuccess(), set.onComplete(), set.onDeath()}) {
            if (callback != null) {
                queues.add(callback.queue());
            }
        }
        clientOf(queues, "job set"); // every queue declared, on one client
        QueueCatalog.Queue first = this.catalog.find(queues.get(0)).orElseThrow();
        return observed(set.members(), members -> List.of(sendSet(first, withMembers(set, members)))).get(0);
    }

    @Override
    public List<String> addToSet(String setId, DelayQueueCode code, List<SendRequest> requests) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        if (this.observer == SendObserver.NONE) {
            return addToSet(queue, setId, requests);
        }
        return this.observer.observe(queue.name(), requests, observed -> addToSet(queue, setId, observed));
    }

    @Override
    public List<String> sendChain(Chain chain) {
        if (chain == null) {
            throw new IllegalArgumentException("chain must not be null");
        }
        List<Chain.Step> steps = chain.steps();
        DelayQueueClient client = clientOf(steps.stream().map(Chain.Step::queue).toList(), "chain");
        Map<String, List<SendRequest>> byQueue = new LinkedHashMap<>();
        for (Chain.Step step : steps) {
            byQueue.computeIfAbsent(step.queue(), q -> new ArrayList<>()).add(step.message());
        }
        return observed(byQueue, observed -> {
            Map<String, Integer> next = new LinkedHashMap<>();
            Chain copy = null;
            for (Chain.Step step : steps) {
                int i = next.merge(step.queue(), 1, Integer::sum) - 1;
                SendRequest message = observed.get(step.queue()).get(i);
                copy = copy == null ? Chain.of(step.queue(), message) : copy.then(step.queue(), message);
            }
            copy = copy.retention(chain.retention());
            return sendChain(client, chain.id() == null ? copy : copy.id(chain.id()));
        });
    }

    /**
     * Sends a set on the client of its queues ({@code queue}: the declared queue of its first members); the only step
     * of {@link #sendSet(JobSet)} a subclass changes.
     */
    String sendSet(QueueCatalog.Queue queue, JobSet set) {
        return queue.client().sendSet(set);
    }

    /** Adds to a set on a declared queue; a subclass may defer it. */
    List<String> addToSet(QueueCatalog.Queue queue, String setId, List<SendRequest> requests) {
        return queue.client().addToSet(setId, queue.name(), requests);
    }

    /** Sends a chain on the client of its queues; a subclass may defer it. */
    List<String> sendChain(DelayQueueClient client, Chain chain) {
        return client.sendChain(chain);
    }

    /**
     * The engine client of a set's or chain's queues, by name: each must be declared, and all under one key prefix
     * (the set's keys and its members' marks are under it, and whichever consumer settles a member sends the
     * callbacks). The client of the first queue, when their clients differ by their payload limit only.
     */
    private DelayQueueClient clientOf(List<String> queues, String what) {
        DelayQueueClient client = null;
        String first = null;
        for (String name : queues) {
            QueueCatalog.Queue queue = this.catalog.find(name).orElseThrow(() -> new IllegalArgumentException(
                    "Unknown queue '" + name + "' in a " + what + ": it is not among the declared codes "
                            + this.catalog.codes().stream().map(DelayQueueCode::code).toList()
                            + "; enums implementing DelayQueueCode are found under the application's packages and "
                            + "delayqueue.scan-packages"));
            if (client == null) {
                client = queue.client();
                first = name;
            } else if (!client.options().keyPrefix().equals(queue.client().options().keyPrefix())) {
                throw new IllegalArgumentException("A " + what + " spans queues under different key prefixes: '"
                        + first + "' is under '" + client.options().keyPrefix() + "', '" + name + "' under '"
                        + queue.client().options().keyPrefix() + "'; a " + what + "'s queues must share one");
            }
        }
        if (client == null) {
            throw new IllegalArgumentException("a " + what + " needs at least one queue");
        }
        return client;
    }

    /**
     * Calls {@code send} with the requests of each queue as the observer gives them (with the trace context in their
     * headers): one observation per queue with requests, nested in queue order.
     */
    private List<String> observed(Map<String, List<SendRequest>> requests,
            Function<Map<String, List<SendRequest>>, List<String>> send) {
        if (this.observer == SendObserver.NONE) {
            return send.apply(requests);
        }
        return observed(new ArrayList<>(requests.keySet()), 0, requests, send);
    }

    private List<String> observed(List<String> queues, int index, Map<String, List<SendRequest>> requests,
            Function<Map<String, List<SendRequest>>, List<String>> send) {
        if (index == queues.size()) {
            return send.apply(requests);
        }
        String queue = queues.get(index);
        List<SendRequest> mine = requests.get(queue);
        if (mine.isEmpty()) {
            return observed(queues, index + 1, requests, send);
        }
        return this.observer.observe(queue, mine, copies -> {
            Map<String, List<SendRequest>> next = new LinkedHashMap<>(requests);
            next.put(queue, copies);
            return observed(queues, index + 1, next, send);
        });
    }

    /** {@code set} with these members (the same queues, in the same order). */
    static JobSet withMembers(JobSet set, Map<String, List<SendRequest>> members) {
        if (members == set.members()) {
            return set;
        }
        return withId(set, set.id(), members);
    }

    /** {@code set} under {@code id} (null: none, the send generates one), with {@code members}. */
    static JobSet withId(JobSet set, @Nullable String id, Map<String, List<SendRequest>> members) {
        JobSet.Builder builder = JobSet.builder();
        if (id != null) {
            builder.id(id);
        }
        members.forEach(builder::add);
        JobSet.Callback success = set.onSuccess();
        if (success != null) {
            builder.onSuccess(success.queue(), success.message());
        }
        JobSet.Callback complete = set.onComplete();
        if (complete != null) {
            builder.onComplete(complete.queue(), complete.message());
        }
        JobSet.Callback death = set.onDeath();
        if (death != null) {
            builder.onDeath(death.queue(), death.message());
        }
        String parent = set.parent();
        if (parent != null) {
            builder.parent(parent);
        }
        return builder.retention(set.retention()).build();
    }

    @Override
    public boolean cancel(DelayQueueCode code, String id) {
        return cancel(this.catalog.require(code), id);
    }

    @Override
    public boolean reschedule(DelayQueueCode code, String id, Duration delay) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        if (delay == null) {
            throw new IllegalArgumentException("delay must not be null");
        }
        return reschedule(queue, id, delay, null);
    }

    @Override
    public boolean rescheduleAt(DelayQueueCode code, String id, Instant dueAt) {
        QueueCatalog.Queue queue = this.catalog.require(code);
        if (dueAt == null) {
            throw new IllegalArgumentException("dueAt must not be null");
        }
        return reschedule(queue, id, null, dueAt);
    }

    /** Cancels in a declared queue; a subclass may route it. */
    boolean cancel(QueueCatalog.Queue queue, String id) {
        return queue.client().cancel(queue.name(), id);
    }

    /** Reschedules in a declared queue, after {@code delay} or at {@code dueAt} (exactly one); a subclass may route it. */
    boolean reschedule(QueueCatalog.Queue queue, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
        return delay != null ? queue.client().reschedule(queue.name(), id, delay)
                : queue.client().rescheduleAt(queue.name(), id, dueAt);
    }
}
