package io.github.delayqueue.spring.core;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.PayloadCodec;
import io.github.delayqueue.spring.DelayQueueCode;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The declared queues and the engine client of each: one {@link DelayQueueClient} per {@link ClientPlan}, which the
 * auto-configuration resolves from the properties (one per distinct key prefix and payload limit, so per-queue
 * overrides of those need no extra connections), and the consumer settings it resolved.
 *
 * <p>Internal to the starter: public only so that its other packages and the auto-configuration can use it.
 */
public final class QueueCatalog {

    private static final Logger log = LoggerFactory.getLogger(QueueCatalog.class);

    /** One declared queue. */
    public record Queue(DelayQueueCode code, DelayQueueClient client) {

        public String name() {
            return this.code.code();
        }
    }

    /** One engine client to create: its options (codec and listener included) and the codes of the queues it serves. */
    public record ClientPlan(ClientOptions options, List<String> codes) {

        public ClientPlan {
            codes = List.copyOf(codes);
        }
    }

    private final Map<String, Queue> queues = new LinkedHashMap<>();
    private final List<DelayQueueCode> codes;
    private final QueueConsumerSettings settings;
    private final PayloadCodec codec;

    /**
     * Creates the clients of {@code plans} (in the order their first queue is declared), each declared queue on the
     * client of the plan that names it.
     *
     * @throws IllegalArgumentException if a declared code is in no plan
     */
    public QueueCatalog(List<DelayQueueCode> codes, List<ClientPlan> plans, QueueConsumerSettings settings,
            RedissonClient redisson, PayloadCodec codec) {
        this.codes = List.copyOf(codes);
        this.settings = settings;
        this.codec = codec;
        Map<String, ClientPlan> planOf = new LinkedHashMap<>();
        for (ClientPlan plan : plans) {
            plan.codes().forEach(code -> planOf.put(code, plan));
        }
        Map<ClientPlan, DelayQueueClient> clients = new IdentityHashMap<>();
        for (DelayQueueCode code : codes) {
            ClientPlan plan = planOf.get(code.code());
            if (plan == null) {
                throw new IllegalArgumentException("queue '" + code.code() + "' is in no client plan");
            }
            DelayQueueClient client = clients.computeIfAbsent(plan, p -> DelayQueueClient.create(redisson, p.options()));
            this.queues.put(code.code(), new Queue(code, client));
        }
        if (codes.isEmpty()) {
            log.info("No DelayQueueCode enums found; declare queues in an enum implementing DelayQueueCode under the "
                    + "application's package or delayqueue.scan-packages");
        }
    }

    public List<DelayQueueCode> codes() {
        return this.codes;
    }

    public PayloadCodec codec() {
        return this.codec;
    }

    /** The consumer settings of the declared queues, as the auto-configuration resolved them. */
    public QueueConsumerSettings settings() {
        return this.settings;
    }

    public Optional<Queue> find(String code) {
        return Optional.ofNullable(this.queues.get(code));
    }

    /**
     * The declared queue of {@code code}.
     *
     * @throws IllegalArgumentException if the code is {@code null} or not declared
     */
    public Queue require(DelayQueueCode code) {
        if (code == null) {
            throw new IllegalArgumentException("queue code must not be null");
        }
        String name = code.code();
        Queue queue = name == null ? null : this.queues.get(name);
        if (queue == null || !queue.code().equals(code)) {
            throw new IllegalArgumentException("Unknown queue code '" + name + "' (" + code.getClass().getName()
                    + "): it is not among the declared codes " + this.queues.keySet()
                    + "; enums implementing DelayQueueCode are found under the application's packages and "
                    + "delayqueue.scan-packages");
        }
        return queue;
    }
}
