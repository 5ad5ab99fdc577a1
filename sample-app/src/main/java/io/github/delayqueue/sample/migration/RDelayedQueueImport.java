package io.github.delayqueue.sample.migration;

import org.redisson.codec.Kryo5Codec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import io.github.delayqueue.core.ImportReport;
import io.github.delayqueue.sample.SampleQueues;
import io.github.delayqueue.sample.orders.PaymentTimeout;
import io.github.delayqueue.spring.DelayQueueAdmin;

/**
 * The recipe of docs/migrating-from-rdelayedqueue.md, as an application that used Redisson's
 * {@code RDelayedQueue} for its payment timeouts would add it for the switch: started with
 * {@code --sample.migration.rdelayedqueue.from=<name>}, it imports the payment timeouts still pending under
 * that Redisson queue (order references offered with Redisson's default codec), as a dry run unless
 * {@code --sample.migration.rdelayedqueue.dry-run=false}. Without the property it does not exist.
 */
@Component
@ConditionalOnProperty("sample.migration.rdelayedqueue.from")
class RDelayedQueueImport implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(RDelayedQueueImport.class);

    private final DelayQueueAdmin admin;
    private final Environment environment;

    RDelayedQueueImport(DelayQueueAdmin admin, Environment environment) {
        this.admin = admin;
        this.environment = environment;
    }

    @Override
    public void run(ApplicationArguments args) {
        report();
    }

    /** Runs the import once and returns its report (the application logs it). */
    ImportReport report() {
        String from = this.environment.getRequiredProperty("sample.migration.rdelayedqueue.from");
        boolean dryRun = this.environment.getProperty("sample.migration.rdelayedqueue.dry-run", Boolean.class, true);
        ImportReport report = this.admin.importFromRDelayedQueue(SampleQueues.ORDER_PAYMENT_TIMEOUT, from,
                new Kryo5Codec(), dryRun, value -> new PaymentTimeout((String) value));
        log.info("RDelayedQueue import: {}", report);
        report.failures().forEach(f -> log.warn("Not imported: {} due {}: {}", f.entry(), f.dueAt(), f.reason()));
        return report;
    }
}
