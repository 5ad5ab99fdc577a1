package io.github.delayqueue.spring.batch;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.BatchFailedException;
import io.github.delayqueue.core.BatchItem;
import io.github.delayqueue.spring.DelayBatchMessageHandler;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

/** The application of {@link BatchHandlerIntegrationTests}: a batch method, a batch bean, and a List payload handler. */
@SpringBootApplication
public class BatchApp {

    /** The queues; only this application's package declares them. */
    public enum Queues implements DelayQueueCode {
        /** A batch method, batch-size 5 by the properties. */
        ROWS,
        /** A {@link DelayBatchMessageHandler} bean. */
        MAILS,
        /** A handler of single messages whose payload is a List. */
        LISTS
    }

    /** Each ROWS call's items as "payload@attempt". */
    static final List<List<String>> ROW_CALLS = new CopyOnWriteArrayList<>();
    static final List<List<String>> MAIL_CALLS = new CopyOnWriteArrayList<>();
    static final List<List<String>> LISTS_SEEN = new CopyOnWriteArrayList<>();

    @Component
    static class Handlers {

        @DelayHandler(value = "ROWS", batch = "true", concurrency = "1")
        void rows(List<BatchItem<String>> items) {
            ROW_CALLS.add(items.stream().map(i -> i.payload() + "@" + i.context().attempt()).toList());
            for (BatchItem<String> item : items) {
                if (item.payload().equals("bad") && item.context().attempt() == 1) {
                    throw new BatchFailedException(List.of(item.id()), new IllegalStateException("row refused"));
                }
            }
        }

        @DelayHandler("LISTS")
        void lists(List<String> payload) {
            LISTS_SEEN.add(payload);
        }
    }

    @Component
    @DelayHandler(value = "MAILS", concurrency = "1")
    static class Mails implements DelayBatchMessageHandler<String> {

        @Override
        public void handle(List<BatchItem<String>> items) {
            MAIL_CALLS.add(items.stream().map(BatchItem::payload).toList());
        }
    }
}
