package io.github.delayqueue.spring;

import java.util.List;

import io.github.delayqueue.core.BatchItem;

/**
 * A batch handler bean for one queue, bound with {@link DelayHandler @DelayHandler} on its class (implementing this
 * interface makes it a batch handler, as {@code batch = "true"} does for a method):
 *
 * <pre>{@code
 * @Component
 * @DelayHandler("INVOICE_EXPORT")
 * class InvoiceExport implements DelayBatchMessageHandler<InvoiceRef> {
 *     public void handle(List<BatchItem<InvoiceRef>> items) { ... one JDBC batch ... }
 * }
 * }</pre>
 *
 * <p>Up to {@code delayqueue.queues.<code>.batch-size} due messages per call, handed over as soon as they are
 * claimed ({@code batch-wait} waits that long to fill a batch). Each item has its own payload and
 * {@link io.github.delayqueue.core.MessageContext}. Returning acknowledges every item; throwing
 * {@link io.github.delayqueue.core.BatchFailedException} retries (or dead-letters) only the items it names; any other
 * exception retries every item, each by its own attempt count. See
 * {@link io.github.delayqueue.core.BatchMessageHandler}.
 *
 * @param <T> the payload type of each message
 */
@FunctionalInterface
public interface DelayBatchMessageHandler<T> {

    /** Handles one batch; {@code items} is never empty. */
    void handle(List<BatchItem<T>> items) throws Exception;
}
