package io.github.delayqueue.sample.migration;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.redisson.codec.Kryo5Codec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import io.github.delayqueue.core.ImportInProgressException;
import io.github.delayqueue.core.ImportReport;
import io.github.delayqueue.sample.SampleQueues;
import io.github.delayqueue.sample.meetings.MeetingReminder;
import io.github.delayqueue.sample.orders.PaymentTimeout;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import tools.jackson.databind.json.JsonMapper;

/**
 * The recipe of docs/guides/migrating-from-rdelayedqueue.md, as an older version of this service that used Redisson's
 * {@code RDelayedQueue} would add it for the switch. That version offered JSON strings (written with Redisson's
 * default codec) to two Redisson queues, {@code paymentTimeouts} and {@code meetingReminders} (names set by
 * {@code sample.migration.rdelayedqueue.payment-timeouts} and {@code .meeting-reminders}); this runner imports what
 * is still pending there into {@code ORDER_PAYMENT_TIMEOUT} and {@code MEETING_REMINDER}, each JSON string mapped
 * to the payload record with the application's {@link JsonMapper}. Fields the records no longer have are dropped:
 * Spring Boot's {@code JsonMapper} ignores unknown properties, and the imported message holds the record's JSON.
 *
 * <p>Enabled by {@code sample.migration.rdelayedqueue.enabled=true}; a dry run unless
 * {@code sample.migration.rdelayedqueue.dry-run=false}. It runs before the starter's consumers start: it is
 * ordered first among the application runners, and the starter starts its consumers from an unordered one (the
 * log line says whether they had started). On an application of several instances, the one that takes the import
 * lease imports; the others skip it with a log line (their consumers take the imported jobs once they start).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
@ConditionalOnBooleanProperty("sample.migration.rdelayedqueue.enabled")
class RDelayedQueueImport implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(RDelayedQueueImport.class);

    private final DelayQueueAdmin admin;
    private final DelayQueueConsumerRegistry consumers;
    private final JsonMapper json;
    private final Environment environment;
    private volatile boolean consumersRunningAtStartup;

    RDelayedQueueImport(DelayQueueAdmin admin, DelayQueueConsumerRegistry consumers, JsonMapper json,
            Environment environment) {
        this.admin = admin;
        this.consumers = consumers;
        this.json = json;
        this.environment = environment;
    }

    @Override
    public void run(ApplicationArguments args) {
        this.consumersRunningAtStartup = this.consumers.isRunning();
        log.info("RDelayedQueue import at startup; consumers started already: {}", this.consumersRunningAtStartup);
        importAll();
    }

    /** Whether the consumers had started when the import ran at startup (they had not: it runs first). */
    boolean consumersRunningAtStartup() {
        return this.consumersRunningAtStartup;
    }

    /** Imports every source once (dry run unless configured otherwise); empty if another instance is importing. */
    List<ImportReport> importAll() {
        boolean dryRun = this.environment.getProperty("sample.migration.rdelayedqueue.dry-run", Boolean.class, true);
        List<ImportReport> reports = new ArrayList<>();
        try {
            reports.add(importOne(SampleQueues.ORDER_PAYMENT_TIMEOUT,
                    this.environment.getProperty("sample.migration.rdelayedqueue.payment-timeouts", "paymentTimeouts"),
                    dryRun, value -> this.json.readValue((String) value, PaymentTimeout.class)));
            reports.add(importOne(SampleQueues.MEETING_REMINDER,
                    this.environment.getProperty("sample.migration.rdelayedqueue.meeting-reminders", "meetingReminders"),
                    dryRun, value -> this.json.readValue((String) value, MeetingReminder.class)));
        } catch (ImportInProgressException e) {
            log.info("RDelayedQueue import skipped: {}", e.getMessage());
        }
        return reports;
    }

    private ImportReport importOne(DelayQueueCode code, String from, boolean dryRun, Function<Object, ?> mapping) {
        ImportReport report = this.admin.importFromRDelayedQueue(code, from, new Kryo5Codec(), dryRun, mapping);
        log.info("RDelayedQueue import: {}", report);
        report.failures().forEach(f -> log.warn("Not imported from {}: {} due {}: {}", from, f.entry(), f.dueAt(),
                f.reason()));
        return report;
    }
}
