package io.github.delayqueue.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The platform-thread handler pool: no task is stranded, blocking tasks get threads, shutdown and interrupts. */
class HandlerPoolTest {

    private HandlerPool pool;

    private HandlerPool pool(Duration keepAlive) {
        pool = new HandlerPool(Threads.named("test-handler"), keepAlive.toNanos(), TimeUnit.NANOSECONDS);
        return pool;
    }

    /**
     * A pool whose second and later threads wait for {@code gate} before they start working: a task
     * executed while the first thread is busy then stays queued until the gate opens.
     */
    private HandlerPool poolWithGatedExtraThreads(CountDownLatch gate) {
        AtomicInteger created = new AtomicInteger();
        ThreadFactory named = Threads.named("test-handler");
        pool = new HandlerPool(work -> named.newThread(created.incrementAndGet() == 1 ? work : () -> {
            awaitQuietly(gate);
            work.run();
        }), 60, TimeUnit.SECONDS);
        return pool;
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (pool != null) {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @RepeatedTest(5)
    void runsEveryTaskOfABurstOnNamedThreads() throws InterruptedException {
        HandlerPool p = pool(Duration.ofSeconds(60));
        int n = 20_000;
        CountDownLatch done = new CountDownLatch(n);
        Set<String> names = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < n; i++) {
            p.execute(() -> {
                names.add(Thread.currentThread().getName());
                done.countDown();
            });
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).as("every task ran").isTrue();
        assertThat(names).allSatisfy(name -> assertThat(name).startsWith("test-handler-"));
    }

    @Test
    void blockingTasksEachGetTheirOwnThread() throws InterruptedException {
        HandlerPool p = pool(Duration.ofSeconds(60));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch allStarted = startBlocking(p, 32, release);
        // a task queued behind a blocked one would never start: 32 must run at once
        assertThat(allStarted.await(10, TimeUnit.SECONDS)).as("32 blocking tasks running at once").isTrue();
        assertThat(p.threadCount()).isEqualTo(32);
        release.countDown();
    }

    @Test
    void tasksSentOneAtATimeReuseOneThread() throws Exception {
        HandlerPool p = pool(Duration.ofSeconds(60));
        Set<String> names = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 100; i++) {
            Future<?> f = p.submit(() -> names.add(Thread.currentThread().getName()));
            f.get(10, TimeUnit.SECONDS);
            // the worker parks (or is about to) before the next task: it is woken, no new thread is made
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).until(() -> p.idleCount() == 1);
        }
        assertThat(names).hasSize(1);
        assertThat(p.threadCount()).isEqualTo(1);
    }

    @Test
    void anInterruptAimedAtACancelledTaskDoesNotReachTheNextTask() throws Exception {
        HandlerPool p = pool(Duration.ofSeconds(60));
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        FutureTask<Void> hung = new FutureTask<>(() -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                sawInterrupt.set(true);
            }
            return null;
        });
        p.execute(hung);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        hung.cancel(true); // what the lease keeper does to a handler past its timeout
        Future<Boolean> next = p.submit(() -> Thread.currentThread().isInterrupted());
        assertThat(next.get(10, TimeUnit.SECONDS)).as("next task starts uninterrupted").isFalse();
        await().atMost(Duration.ofSeconds(10)).untilTrue(sawInterrupt);
        // and an idle worker with a stray interrupt parks instead of spinning: it still takes work
        assertThat(p.submit(() -> "ok").get(10, TimeUnit.SECONDS)).isEqualTo("ok");
    }

    @Test
    void idleThreadsEndAfterTheKeepAliveAndNewOnesStartForNewWork() throws Exception {
        HandlerPool p = pool(Duration.ofMillis(50));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = startBlocking(p, 4, release);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> p.threadCount() == 0);
        assertThat(p.submit(() -> "again").get(10, TimeUnit.SECONDS)).isEqualTo("again");
    }

    @Test
    void shutdownNowInterruptsRunningTasksReturnsQueuedOnesAndRejectsNewOnes() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        HandlerPool p = poolWithGatedExtraThreads(gate);
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        p.execute(() -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Runnable queued = () -> { };
        p.execute(queued);
        List<Runnable> left = p.shutdownNow();
        assertThat(left).containsExactly(queued);
        assertThat(p.awaitTermination(100, TimeUnit.MILLISECONDS)).as("a thread is still starting").isFalse();
        gate.countDown();
        assertThat(p.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(interrupted).isTrue();
        assertThat(p.isShutdown()).isTrue();
        assertThat(p.isTerminated()).isTrue();
        assertThatThrownBy(() -> p.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> p.execute(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void shutdownLetsQueuedTasksFinish() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        HandlerPool p = poolWithGatedExtraThreads(gate);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        p.execute(() -> {
            awaitQuietly(release);
            ran.incrementAndGet();
        });
        p.execute(ran::incrementAndGet); // queued: the second thread waits at the gate
        p.shutdown();
        assertThat(p.awaitTermination(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(ran).hasValue(0);
        gate.countDown();
        release.countDown();
        assertThat(p.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).hasValue(2);
    }

    @Test
    void aFactoryThatGivesNoThreadRejectsTheTaskAndLeavesThePoolUsable() throws Exception {
        ThreadFactory named = Threads.named("test-handler");
        AtomicInteger asked = new AtomicInteger();
        HandlerPool p = new HandlerPool(work -> asked.incrementAndGet() == 1 ? null : named.newThread(work), 60,
                TimeUnit.SECONDS);
        pool = p;
        assertThatThrownBy(() -> p.execute(() -> { })).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("no handler thread");
        // nothing was counted for the thread that never came: the next task gets a worker and runs
        assertThat(p.submit(() -> "ran").get(10, TimeUnit.SECONDS)).isEqualTo("ran");
    }

    @Test
    void aFailingTaskDoesNotKillTheWorker() throws Exception {
        HandlerPool p = pool(Duration.ofSeconds(60));
        Future<?> failing = p.submit(() -> {
            throw new IllegalStateException("boom");
        });
        assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        assertThat(p.submit(() -> "still here").get(10, TimeUnit.SECONDS)).isEqualTo("still here");
    }

    /** Runs {@code n} tasks that each block until {@code release}; the returned latch counts their starts. */
    private static CountDownLatch startBlocking(HandlerPool p, int n, CountDownLatch release) {
        CountDownLatch started = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            p.execute(() -> {
                started.countDown();
                awaitQuietly(release);
            });
        }
        return started;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
