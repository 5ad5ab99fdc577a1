package io.github.delayqueue.spring.flow;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.spring.DelayQueueConsumerRegistry;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.flow.FlowApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The flow limits of a real Boot application against a real Redis: {@code rate-limit} from the properties,
 * {@code maxInFlight} from {@code @DelayHandler}, and the throttled claims counted by the metrics. (Several
 * instances together are {@code FlowControlTest}'s, in the engine.)
 */
@SpringBootTest(classes = FlowApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FlowIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("delayqueue.queues.LIMITED.rate-limit", () -> "10/1s");
        registry.add("delayqueue.queues.LIMITED.rate-limit-burst", () -> "2");
        // only the next permit (and a settle, under the cap) can wake the consumers in time
        registry.add("delayqueue.consumer.max-poll-interval", () -> "30s");
        registry.add("delayqueue.queues.VIEWED.rate-limit", () -> "5/1s");
        registry.add("delayqueue.queues.VIEWED.max-in-flight", () -> "3");
        registry.add("delayqueue.metrics.refresh-interval", () -> "100ms");
        registry.add("management.endpoints.web.exposure.include", () -> "delayqueue");
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();
    private final JsonMapper json = JsonMapper.builder().build();

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return this.json.readTree(response.body());
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    MeterRegistry meters;

    @Autowired
    DelayQueueConsumerRegistry registry;

    @Test
    void theStatusShowsEachQueuesLimits() {
        assertThat(this.registry.status()).filteredOn(s -> s.queue().equals("LIMITED")).singleElement().satisfies(s -> {
            assertThat(s.rateLimit()).isEqualTo("10/1s burst 2");
            assertThat(s.maxInFlight()).isNull();
        });
        assertThat(this.registry.status()).filteredOn(s -> s.queue().equals("CAPPED")).singleElement().satisfies(s -> {
            assertThat(s.rateLimit()).isNull();
            assertThat(s.maxInFlight()).isEqualTo(2);
        });
    }

    @Test
    void theQueuesRateLimitFromThePropertiesHoldsAndThrottledClaimsAreCounted() {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            batch.add(SendRequest.of("m" + i, Duration.ZERO));
        }
        this.template.sendAll(Queues.LIMITED, batch);
        await().atMost(Duration.ofSeconds(20)).until(() -> FlowApp.LIMITED_STARTS.size() >= 25);
        List<Long> starts = new ArrayList<>(FlowApp.LIMITED_STARTS);
        Collections.sort(starts);
        // 10 per second, a burst of 2: at most 12 in any second (a concurrency of 16 alone would take all 25 at once)
        int most = 0;
        for (int i = 0, j = 0; i < starts.size(); i++) {
            while (j < starts.size() && starts.get(j) - starts.get(i) < 1_000_000_000L) {
                j++;
            }
            most = Math.max(most, j - i);
        }
        // never more (the limit); fewer than 10 only when load delays the handlers' starts, so no lower bound here:
        // a limit far below 10/1s would miss the 20 s deadline above
        assertThat(most).isLessThanOrEqualTo(13);
        Counter throttled = this.meters.find("delayqueue.claims.throttled").tags("queue", "LIMITED", "limit", "rate-limit")
                .counter();
        assertThat(throttled).isNotNull();
        assertThat(throttled.count()).isPositive();
    }

    /**
     * The operator's view: the endpoint and the throttled gauge show, from Redis, the limits the claims apply, the
     * claim rate, the hold a handler's {@code SlowDownException} set and the due messages it keeps back; a message
     * held that long shows the wait in its lateness.
     */
    @Test
    void theEndpointAndTheGaugeShowTheLimitsTheHoldAndTheThrottledBacklog() throws Exception {
        this.template.send(Queues.VIEWED, "slow", Duration.ZERO);
        JsonNode holding = await().atMost(Duration.ofSeconds(20)).until(
                () -> get("/actuator/delayqueue/VIEWED").get("queue").get("flow"), f -> f != null && f.has("holdUntil"));
        Instant holdUntil = Instant.parse(holding.get("holdUntil").asString());
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(SendRequest.of("v" + i, Duration.ZERO));
        }
        this.template.sendAll(Queues.VIEWED, batch);
        Instant sentAt = Instant.now(); // after the sends: every due time is at or before it

        // a due time rounds up to the next millisecond: wait until the 10 are due (or, for a stall, the hold ended)
        JsonNode queue = await().atMost(Duration.ofSeconds(20)).until(() -> get("/actuator/delayqueue/VIEWED").get("queue"),
                q -> q.get("ready").asLong() == 10 || !Instant.parse(q.get("serverTime").asString()).isBefore(holdUntil));
        JsonNode flow = queue.get("flow");
        assertThat(flow.get("rateLimit").asString()).isEqualTo("5/1s");
        assertThat(flow.get("maxInFlight").asInt()).isEqualTo(3);
        assertThat(flow.get("atMaxInFlight").asBoolean()).isFalse();
        assertThat(flow.get("claimsPerSecond").asDouble()).isPositive(); // "slow" was claimed within the last 10 s
        if (Instant.parse(queue.get("serverTime").asString()).isBefore(holdUntil)) { // the hold is 4 s: it is, but for a stall
            assertThat(Instant.parse(flow.get("holdUntil").asString())).isEqualTo(holdUntil);
            assertThat(flow.get("throttled").asLong()).isEqualTo(queue.get("ready").asLong()).isEqualTo(10);
        }
        // the gauge reads the same, every 100 ms here: it shows the 10 while the hold lasts (nothing else makes it 10)
        Gauge throttled = this.meters.find("delayqueue.queue.throttled").tag("queue", "VIEWED").gauge();
        assertThat(throttled).isNotNull();
        Instant gaugeFrom = Instant.now();
        AtomicBoolean sawTen = new AtomicBoolean();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            sawTen.compareAndSet(false, throttled.value() == 10);
            return sawTen.get() || Instant.now().isAfter(holdUntil);
        });
        if (gaugeFrom.isBefore(holdUntil.minusSeconds(2))) { // else a stall left the gauge too little of the hold
            assertThat(sawTen).as("the throttled gauge read 10 during the hold").isTrue();
        }

        // after the hold, the 10 and "slow" drain within the limits, and nothing is left throttled
        await().atMost(Duration.ofSeconds(20)).until(() -> FlowApp.VIEWED_HANDLED.size() == 11);
        assertThat(Instant.now()).isAfterOrEqualTo(holdUntil);
        // the claims the hold held back (at least the one the send woke) are counted
        assertThat(this.meters.find("delayqueue.claims.throttled").tags("queue", "VIEWED", "limit", "slow-down")
                .counter().count()).isPositive();
        await().atMost(Duration.ofSeconds(20)).until(() -> throttled.value() == 0);
        JsonNode drained = get("/actuator/delayqueue").get("queues").get("VIEWED");
        assertThat(drained.get("flow").get("throttled").asLong()).isZero();
        assertThat(drained.get("flow").has("holdUntil")).isFalse();
        // the lateness of a held message shows its wait: the 10 were due when sent and started after the hold
        Timer lateness = this.meters.find("delayqueue.lateness").tag("queue", "VIEWED").timer();
        assertThat(lateness).isNotNull();
        assertThat(lateness.max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo((double) Duration.between(sentAt, holdUntil).toMillis());
    }

    @Test
    void theHandlersMaxInFlightHolds() {
        List<SendRequest> batch = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            batch.add(SendRequest.of("c" + i, Duration.ZERO));
        }
        this.template.sendAll(Queues.CAPPED, batch);
        await().atMost(Duration.ofSeconds(20)).until(() -> FlowApp.CAPPED_DONE.get() >= 30);
        assertThat(FlowApp.CAPPED_MOST.get()).isBetween(1, 2);
        assertThat(this.meters.find("delayqueue.claims.throttled").tags("queue", "CAPPED", "limit", "max-in-flight")
                .counter().count()).isPositive();
    }
}
