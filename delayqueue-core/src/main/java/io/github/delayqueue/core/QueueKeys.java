package io.github.delayqueue.core;

import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/** The Redis keys of one queue. All share the hash tag {@code {queue}}, so every script is legal on a cluster. */
record QueueKeys(String queue, List<Object> keys, String wakeChannel) {

    private static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,100}");

    static QueueKeys of(String prefix, String queue) {
        validateName(queue);
        String base = prefix + ":{" + queue + "}:";
        return new QueueKeys(queue, List.of(base + "messages", base + "delayed", base + "inflight", base + "attempts",
                base + "errors", base + "dead", base + "dead-messages", base + "dead-reasons", base + "sequence",
                base + "paused"),
                base + "wake");
    }

    /** The ledger of messages imported from another store and not yet removed there ({@code RDelayedQueueImporter}). */
    String importLedger() {
        String messages = (String) keys.get(0);
        return messages.substring(0, messages.length() - "messages".length()) + "imported";
    }

    static void validateName(@Nullable String queue) {
        Checks.require(queue != null && !queue.isBlank(), "queue name must not be null or blank");
        Checks.require(QUEUE_NAME.matcher(queue).matches(),
                "queue name must be 1 to 100 characters of A-Z a-z 0-9 _ . -, was '" + queue + "'");
    }
}
