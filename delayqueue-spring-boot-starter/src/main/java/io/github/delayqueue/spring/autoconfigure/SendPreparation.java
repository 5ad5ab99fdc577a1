package io.github.delayqueue.spring.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;

/**
 * Checks a send that is deferred to after commit as the engine would, so bad input fails at the call
 * site, and fixes what the deferred send will write: an id for every message and the payload's JSON
 * as of now. Mirrors {@code DelayQueueClient.sendAll}'s checks, which the engine does not expose on
 * their own.
 */
final class SendPreparation {

    private SendPreparation() {
    }

    /**
     * @return the requests with ids and {@link EncodedPayloadCodec.Encoded} payloads
     * @throws IllegalArgumentException on input the engine would reject
     */
    static List<SendRequest> prepare(DelayQueueClient client, EncodedPayloadCodec codec, List<SendRequest> requests) {
        ClientOptions options = client.options();
        require(requests != null, "requests must not be null");
        require(!requests.isEmpty(), "requests must not be empty");
        require(requests.size() <= options.maxBatchSize(),
                "too many messages in one batch: " + requests.size() + " > maxBatchSize " + options.maxBatchSize());
        List<SendRequest> prepared = new ArrayList<>(requests.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < requests.size(); i++) {
            SendRequest r = requests.get(i);
            String where = requests.size() == 1 ? "" : " (message " + i + ")";
            require(r != null, "request must not be null" + where);
            SendOptions o = r.options();
            require(o != null, "options must not be null" + where);
            String id = o.id() == null ? newId() : checkId(o.id(), where);
            require(seen.add(id), "duplicate id '" + id + "' in one batch" + where);
            checkDue(r.delay(), r.dueAt(), options, where);
            EncodedPayloadCodec.Encoded payload = encode(r.payload(), codec, options.maxPayloadBytes(), where);
            prepared.add(new SendRequest(payload, r.delay(), r.dueAt(), o.withId(id)));
        }
        return prepared;
    }

    private static EncodedPayloadCodec.Encoded encode(Object payload, EncodedPayloadCodec codec, int maxBytes,
            String where) {
        require(payload != null, "payload must not be null" + where);
        String json = codec.delegate().encode(payload);
        require(json != null, "codec returned null for the payload" + where);
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        require(bytes <= maxBytes, "payload is " + bytes + " bytes of JSON, over the limit of " + maxBytes + where);
        return new EncodedPayloadCodec.Encoded(json);
    }

    private static void checkDue(Duration delay, Instant dueAt, ClientOptions options, String where) {
        Duration max = DelayQueueClient.MAX_DELAY;
        if (dueAt == null) {
            require(delay != null, "delay must not be null" + where);
            require(!delay.isNegative(), "delay must not be negative, was " + delay + where);
            require(delay.compareTo(max) <= 0, "delay must be at most " + max + ", was " + delay + where);
            return;
        }
        require(delay == null, "give either a delay or a due instant, not both" + where);
        require(dueAt.isBefore(options.clock().instant().plus(max)),
                "dueAt must be within " + max + " from now, was " + dueAt + where);
        require(dueAt.getEpochSecond() >= 0, "dueAt must not be before 1970, was " + dueAt + where);
    }

    private static String checkId(String id, String where) {
        require(!id.isBlank(), "id must not be null or blank" + where);
        require(id.length() <= ClientOptions.MAX_ID_LENGTH,
                "id must be at most " + ClientOptions.MAX_ID_LENGTH + " characters, was " + id.length() + where);
        for (int i = 0; i < id.length(); i++) {
            require(!Character.isISOControl(id.charAt(i)), "id must not contain control characters" + where);
        }
        return id;
    }

    /** 96 random bits, URL-safe Base64 (16 characters), like the engine's generated ids. */
    static String newId() {
        byte[] bytes = new byte[12];
        ThreadLocalRandom.current().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
