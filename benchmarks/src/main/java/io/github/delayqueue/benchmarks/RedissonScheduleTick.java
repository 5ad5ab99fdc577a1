package io.github.delayqueue.benchmarks;

import java.io.Serializable;
import java.util.function.ObjLongConsumer;

import org.jspecify.annotations.Nullable;

/**
 * The task of schedules-100k on Redisson's side: one per schedule, serialized into Redis with its class bytes by
 * {@code RScheduledExecutorService.schedule(task, CronSchedule)}; each run reports its id and start time to
 * {@link Sink#sink} in this JVM (the executor workers run here too). The sink is a class of its own: Redisson's worker
 * defines the task class from the bytes it stored, in a class loader of its own, and a static field of that copy would
 * not be this JVM's; the sink class it resolves through its parent class loader is.
 */
public final class RedissonScheduleTick implements Runnable, Serializable {

    private static final long serialVersionUID = 1L;

    private final String id;

    RedissonScheduleTick(String id) {
        this.id = id;
    }

    @Override
    public void run() {
        ObjLongConsumer<String> sink = Sink.sink;
        if (sink != null) {
            sink.accept(id, System.currentTimeMillis());
        }
    }

    /** Where the runs go. */
    public static final class Sink {
        /** The receiver of every run: schedule id, start time (epoch ms), or null when no scenario runs. */
        public static volatile @Nullable ObjLongConsumer<String> sink;

        private Sink() {
        }
    }
}
