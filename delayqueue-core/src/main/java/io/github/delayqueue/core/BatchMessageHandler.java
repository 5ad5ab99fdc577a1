package io.github.delayqueue.core;

import java.util.List;

/**
 * Handles the messages of one queue a batch at a time: up to {@link BatchOptions#size()} messages already due, handed
 * over as soon as they are claimed (fewer when fewer are due). Registered explicitly with
 * {@link DelayQueueClient#newBatchConsumer}, never guessed from the payload type: a payload may itself be a
 * {@code List}, and a {@link MessageHandler} of {@code List<Item>} still gets one message at a time.
 *
 * <p>Each message keeps its own {@link MessageContext} and outcome. Returning normally acknowledges every message of
 * the batch; throwing {@link BatchFailedException} retries (or dead-letters, by the retry policy) only the messages it
 * names and acknowledges the others; any other exception fails every message of the batch by the retry policy
 * ({@link RetryLaterException} and {@link SlowDownException} apply to every message). The leases of the whole batch
 * are extended while the handler runs. A message whose payload cannot be decoded goes to the dead letters and is not
 * part of the batch. {@link DeliveryInterceptor}s run per message before the call (an interceptor that does not
 * proceed leaves its message out, acknowledged; one that throws fails its message alone) and hear each message's
 * outcome. Delivery is at-least-once, per message.
 *
 * @param <T> the payload type the JSON of each message is bound to
 */
@FunctionalInterface
public interface BatchMessageHandler<T> {

    /** {@code items} is never empty, in claim order (due time, then send order). */
    void handle(List<BatchItem<T>> items) throws Exception;
}
