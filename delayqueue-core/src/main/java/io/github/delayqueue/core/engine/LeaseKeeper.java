package io.github.delayqueue.core.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.protocol.QueueOps;

/**
 * Extends the leases of one consumer's running handlers every third of the visibility timeout (at least
 * every 20 ms), in script calls of up to {@value Settler#BATCH}, and gives up on handlers running longer
 * than the handler timeout. Runs as a periodic task on the lease thread its client's consumers share.
 */
public final class LeaseKeeper {

    private static final Logger log = LoggerFactory.getLogger(DelayQueueConsumer.class);

    private final String queue;
    private final QueueOps ops;
    private final ConsumerOptions options;
    private final Collection<Delivery> running;
    private final Consumer<Delivery> timeOut;
    /** Told of a running delivery whose message is gone: it was cancelled (cancel.lua's wake-up was lost). */
    private final Consumer<Delivery> gone;
    private @Nullable ScheduledFuture<?> task;

    LeaseKeeper(String queue, QueueOps ops, ConsumerOptions options, Collection<Delivery> running,
            Consumer<Delivery> timeOut, Consumer<Delivery> gone) {
        this.gone = gone;
        this.queue = queue;
        this.ops = ops;
        this.options = options;
        this.running = running;
        this.timeOut = timeOut;
    }

    void start(ScheduledExecutorService executor) {
        long period = periodMs();
        task = executor.scheduleWithFixedDelay(this::keep, period, period, TimeUnit.MILLISECONDS);
    }

    /** No extension after this returns, but for one already under way. */
    void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }

    private long periodMs() {
        return Math.max(20, options.visibilityTimeout().toMillis() / 3);
    }

    /**
     * Writes the running records of the deliveries this round extended that have none yet (a consumer that keeps the
     * history): a delivery that outlives a lease period shows where and since when it runs, while quick ones, settled
     * before any round reaches them, cost no write.
     */
    private void record(List<Delivery> unrecorded) {
        for (int from = 0; from < unrecorded.size(); from += Settler.BATCH) {
            List<Delivery> batch = unrecorded.subList(from, Math.min(unrecorded.size(), from + Settler.BATCH));
            List<String> args = new ArrayList<>(batch.size() * 5);
            for (Delivery delivery : batch) {
                args.add(delivery.claimed.id());
                args.add(delivery.claimed.member());
                args.add(Integer.toString(delivery.claimed.attempt()));
                args.add(delivery.runningRecord());
                args.add("");
            }
            boolean[] written = ops.running(args);
            for (int i = 0; i < written.length; i++) {
                if (written[i]) {
                    batch.get(i).runningWritten = true;
                }
            }
        }
    }

    private void keep() {
        try {
            long timeoutNanos = options.handlerTimeout().toNanos();
            long now = System.nanoTime();
            List<Delivery> extended = new ArrayList<>();
            List<String> fences = new ArrayList<>();
            for (Delivery delivery : running) {
                if (now - delivery.startNanos > timeoutNanos) {
                    timeOut.accept(delivery);
                } else if (!delivery.isSettled()) {
                    extended.add(delivery);
                    fences.add(delivery.claimed.member());
                    fences.add(Integer.toString(delivery.claimed.attempt()));
                }
            }
            List<Delivery> unrecorded = new ArrayList<>();
            for (int from = 0; from < extended.size(); from += Settler.BATCH) {
                int to = Math.min(extended.size(), from + Settler.BATCH);
                boolean[] ok = ops.extend(options.visibilityTimeout().toMillis(), fences.subList(from * 2, to * 2));
                for (int i = 0; i < ok.length; i++) {
                    Delivery delivery = extended.get(from + i);
                    // one whose handler reported progress has its record written with it (ConsumerEngine.writeProgress)
                    if (ok[i] && options.keepsHistory() && !delivery.runningWritten && delivery.progressJson == null) {
                        unrecorded.add(delivery);
                    }
                    if (!ok[i] && !delivery.isSettled()) {
                        // read before the once-per-delivery flag: a read that fails is tried again next round
                        boolean stored = ops.exists(delivery.claimed.id());
                        if (!stored) {
                            gone.accept(delivery); // cancelled, and its wake-up lost
                        } else if (delivery.firstLeaseLoss()) {
                            log.warn("Queue '{}': lease of message '{}' (attempt {}) was lost while its handler runs; "
                                    + "it may be delivered again", queue, delivery.claimed.id(), delivery.claimed.attempt());
                        }
                    }
                }
            }
            record(unrecorded);
        } catch (Throwable e) { // a periodic task that throws is never run again: no lease would be extended
            Threads.loopFailed(log, e, "Queue '{}': extending leases failed, trying again in {} ms: {}", queue,
                    periodMs());
        }
    }
}
