package io.github.delayqueue.sample.reports;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.sample.orders.OrderRepository;

/**
 * A recurring job: each tick of the {@code nightly-report} schedule (application.yml; every 30 seconds here, so you
 * can watch it tick) runs here once, on one instance however many run, with the retries and dead letters of any
 * message. A real nightly job would declare {@code cron: "0 0 2 * * *"} in its zone. See docs/guides/recurring-jobs.md.
 */
@Component
@DelayHandler("NIGHTLY_REPORT")
public class NightlyReportJob implements ContextAwareDelayMessageHandler<ReportRequest> {

    private static final Logger log = LoggerFactory.getLogger(NightlyReportJob.class);

    private final OrderRepository orders;
    private final AtomicLong runs = new AtomicLong();

    NightlyReportJob(OrderRepository orders) {
        this.orders = orders;
    }

    @Override
    public void handle(ReportRequest request, MessageContext context) {
        this.runs.incrementAndGet();
        log.info("Report '{}' for the tick due at {}: {} orders", request.kind(), context.dueAt(), this.orders.count());
    }

    /** How many ticks this instance ran. */
    public long runs() {
        return this.runs.get();
    }
}
