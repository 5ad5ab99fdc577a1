package io.github.delayqueue.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.delayqueue.core.schedule.ScheduleInfo;
import io.github.delayqueue.core.schedule.ScheduleListener;
import io.github.delayqueue.core.schedule.ScheduleSpec;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayMessageHandler;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderTimeout;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.outbox.StoppableRedis;
import io.github.delayqueue.spring.schedule.DelayQueueSchedules;
import io.github.delayqueue.testing.TestRedis;

/**
 * Schedules in Spring Boot: {@code delayqueue.schedules.*} checked at startup (each bad input fails with a failure
 * analysis naming the property and the fix, before anything is written), declared and ticking through the
 * application's handler, the rolling-deploy rule between two application contexts, and the runtime API's checks.
 */
class DelayQueueScheduleAutoConfigurationTests {

    private static final String ORDERS = "delayqueue.scan-packages=" + OrderQueues.class.getPackageName();

    private final ApplicationContextRunner offline = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                    DelayQueueScheduleAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", ORDERS);

    private ApplicationContextRunner online(String prefix) {
        return this.offline.withPropertyValues("spring.data.redis.url=" + TestRedis.url(), "delayqueue.key-prefix=" + prefix);
    }

    static final List<OrderTimeout> received = new CopyOnWriteArrayList<>();

    @Configuration(proxyBeanMethods = false)
    static class HandlerConfig {

        @Bean
        OrderTimeoutHandler orderTimeoutHandler() {
            return new OrderTimeoutHandler();
        }
    }

    @DelayHandler("ORDER_TIMEOUT")
    static class OrderTimeoutHandler implements DelayMessageHandler<OrderTimeout> {

        @Override
        public void handle(OrderTimeout payload) {
            received.add(payload);
        }
    }

    /** Waits for the declaration (made on a thread of its own) to be stored with {@code expression}. */
    private static ScheduleInfo declared(DelayQueueSchedules schedules, String queue, String id, String expression) {
        await().atMost(Duration.ofSeconds(30)).until(() -> schedules.get(queue, id)
                .filter(info -> info.spec().expression().equals(expression)).isPresent());
        return schedules.get(queue, id).orElseThrow();
    }

    private static FailureAnalysis analysis(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new DelayQueueFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis).as("a failure analysis of %s", context.getStartupFailure()).isNotNull();
        return analysis;
    }

    private void failsWith(String description, String action, String... properties) {
        this.offline.withUserConfiguration(HandlerConfig.class).withPropertyValues(properties).run(context -> {
            FailureAnalysis analysis = analysis(context);
            assertThat(analysis.getDescription()).contains(description);
            assertThat(analysis.getAction()).contains(action);
        });
    }

    /** The public schedule API holds no machinery: the runtime API, the cron kind, and a read-only view. */
    @Test
    void theScheduleApiExposesNoMachinery() {
        assertThat(java.lang.reflect.Modifier.isPublic(DefaultDelayQueueSchedules.class.getModifiers())).isFalse();
        assertThat(java.lang.reflect.Modifier.isPublic(ScheduleDeclarations.class.getModifiers())).isFalse();
        assertThat(java.util.Arrays.stream(ScheduleInfo.class.getRecordComponents())
                .map(java.lang.reflect.RecordComponent::getName)).doesNotContain("version");
    }

    @Test
    void badDeclarationsFailStartupNamingThePropertyAndTheFix() {
        failsWith("delayqueue.schedules.nightly.queue is not set", "declared queue code",
                "delayqueue.schedules.nightly.cron=0 0 2 * * *");
        failsWith("delayqueue.schedules.nightly.queue is 'NOPE', which no DelayQueueCode enum declares", "ORDER_TIMEOUT",
                "delayqueue.schedules.nightly.queue=NOPE", "delayqueue.schedules.nightly.cron=0 0 2 * * *");
        failsWith("delayqueue.schedules.nightly sets both cron and every", "Set exactly one",
                "delayqueue.schedules.nightly.queue=REMINDER", "delayqueue.schedules.nightly.cron=0 0 2 * * *",
                "delayqueue.schedules.nightly.every=30s");
        failsWith("delayqueue.schedules.nightly sets neither cron nor every", "Set exactly one",
                "delayqueue.schedules.nightly.queue=REMINDER");
        failsWith("delayqueue.schedules.nightly.cron is '0 0 2 * *', which is not a cron expression", "6 fields",
                "delayqueue.schedules.nightly.queue=REMINDER", "delayqueue.schedules.nightly.cron=0 0 2 * *");
        // valid, but no date matches (February 30): it failed later, on the declaration thread, logged only
        failsWith("delayqueue.schedules.nightly.cron is '0 0 0 30 2 *', which never fires", "matches a date",
                "delayqueue.schedules.nightly.queue=REMINDER", "delayqueue.schedules.nightly.cron=0 0 0 30 2 *");
        failsWith("delayqueue.schedules.nightly.zone is 'Mars/Olympus'", "IANA zone id",
                "delayqueue.schedules.nightly.queue=REMINDER", "delayqueue.schedules.nightly.cron=0 0 2 * * *",
                "delayqueue.schedules.nightly.zone=Mars/Olympus");
        failsWith("delayqueue.schedules.beat.every is PT0S", "positive duration",
                "delayqueue.schedules.beat.queue=REMINDER", "delayqueue.schedules.beat.every=0s");
        failsWith("delayqueue.schedules.beat.every is PT-1S", "positive duration",
                "delayqueue.schedules.beat.queue=REMINDER", "delayqueue.schedules.beat.every=-1s");
        failsWith("delayqueue.schedules.beat.payload is not valid", "JSON of the payload type",
                "delayqueue.schedules.beat.queue=REMINDER", "delayqueue.schedules.beat.every=30s",
                "delayqueue.schedules.beat.payload={oops");
        failsWith("does not bind to " + OrderTimeout.class.getName(), "delayqueue.schedules.beat.payload",
                "delayqueue.schedules.beat.queue=ORDER_TIMEOUT", "delayqueue.schedules.beat.every=30s",
                "delayqueue.schedules.beat.payload=[1, 2]");
        // a handler is never given null: a tick without a payload would go to the dead letters and end the series
        failsWith("delayqueue.schedules.beat.payload is empty", "delayqueue.schedules.beat.payload",
                "delayqueue.schedules.beat.queue=REMINDER", "delayqueue.schedules.beat.every=30s",
                "delayqueue.schedules.beat.payload=");
        failsWith("delayqueue.schedules.beat.payload is JSON null", "delayqueue.schedules.beat.payload",
                "delayqueue.schedules.beat.queue=ORDER_TIMEOUT", "delayqueue.schedules.beat.every=30s",
                "delayqueue.schedules.beat.payload=null");
        failsWith("The schedule name 'a|b' is not a valid schedule id", "Rename it",
                "delayqueue.schedules[a|b].queue=REMINDER", "delayqueue.schedules[a|b].every=30s");
        failsWith("delayqueue.schedules.beat.catch-up-limit is 0", "between 1 and",
                "delayqueue.schedules.beat.queue=REMINDER", "delayqueue.schedules.beat.every=30s",
                "delayqueue.schedules.beat.catch-up-limit=0");
    }

    /**
     * As the rest of the starter: Redis down at startup does not fail it; the declaration keeps trying on its thread
     * and is made once Redis is back.
     */
    @Test
    void aValidDeclarationDoesNotFailStartupWhileRedisIsDownAndIsMadeWhenItIsBack() {
        try (StoppableRedis redis = new StoppableRedis()) { // not started yet: Redis is down
            this.offline.withPropertyValues("spring.data.redis.url=" + redis.url(),
                    "delayqueue.schedules.nightly.queue=REMINDER", "delayqueue.schedules.nightly.cron=0 0 2 * * *")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        ScheduleDeclarations declarations = context.getBean(ScheduleDeclarations.class);
                        assertThat(declarations.isDone()).isFalse(); // still trying
                        redis.start();
                        await().atMost(Duration.ofSeconds(30)).until(declarations::isDone);
                        declared(context.getBean(DelayQueueSchedules.class), "REMINDER", "nightly", "0 0 2 * * *");
                    });
        }
    }

    @Test
    void theRuntimeApiRefusesBadInputBeforeWriting() {
        this.offline.run(context -> {
            DelayQueueSchedules schedules = context.getBean(DelayQueueSchedules.class);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> schedules.put(ScheduleSpec.every("NOPE", "x", Duration.ofSeconds(1)).build()))
                    .withMessageContaining("queue 'NOPE' is not declared");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> schedules.put(ScheduleSpec.cron("REMINDER", "x", "every day").build()))
                    .withMessageContaining("cron");
            assertThatIllegalArgumentException() // Redis is not asked: nothing can be written
                    .isThrownBy(() -> schedules.put(ScheduleSpec.cron("REMINDER", "x", "0 0 0 30 2 *").build()))
                    .withMessageContaining("never fires");
            assertThatIllegalArgumentException().isThrownBy(() -> schedules.remove("REMINDER", "a b"))
                    .withMessageContaining("schedule id");
            assertThatIllegalArgumentException().isThrownBy(() -> schedules.put(null));
            assertThatIllegalArgumentException() // the code forms refuse a null code as the String forms a null queue
                    .isThrownBy(() -> schedules.remove((io.github.delayqueue.spring.DelayQueueCode) null, "x"))
                    .withMessageContaining("queue code must not be null");
            assertThatIllegalArgumentException().isThrownBy(() -> schedules.trigger(OrderQueues.REMINDER, "a b"))
                    .withMessageContaining("schedule id");
        });
    }

    /** With the metrics' listener and one of the application's own: both hear every tick. */
    @Test
    void aDeclaredScheduleTicksThroughTheHandlerWithItsPayload() {
        received.clear();
        List<ScheduleListener.Outcome> heard = new CopyOnWriteArrayList<>();
        ScheduleListener own = new ScheduleListener() {
            @Override
            public void tick(String queue, String schedule, java.time.Instant tick, Outcome outcome, Duration late) {
                heard.add(outcome);
            }
        };
        online(TestRedis.uniquePrefix()).withUserConfiguration(HandlerConfig.class)
                .withConfiguration(AutoConfigurations.of(DelayQueueMetricsAutoConfiguration.class))
                .withBean("ownScheduleListener", ScheduleListener.class, () -> own)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new).withPropertyValues(
                "delayqueue.schedules.heartbeat.queue=ORDER_TIMEOUT", "delayqueue.schedules.heartbeat.every=200ms",
                "delayqueue.schedules.heartbeat.payload={\"orderId\":\"beat\",\"amountCents\":1}").run(context -> {
                    assertThat(context).hasNotFailed();
                    DelayQueueSchedules schedules = context.getBean(DelayQueueSchedules.class);
                    ScheduleInfo info = declared(schedules, "ORDER_TIMEOUT", "heartbeat", "PT0.2S");
                    assertThat(info.declared()).isTrue();
                    assertThat(info.spec().expression()).isEqualTo("PT0.2S");
                    context.getBean(DefaultDelayQueueConsumerRegistry.class).start(); // what the application runner does
                    await().atMost(Duration.ofSeconds(30)).until(() -> received.size() >= 2);
                    assertThat(received).allSatisfy(p -> assertThat(p).isEqualTo(new OrderTimeout("beat", 1)));
                    assertThat(context.getBean(MeterRegistry.class).get("delayqueue.schedule.ticks")
                            .tags("queue", "ORDER_TIMEOUT", "outcome", "fired").timer().count()).isGreaterThanOrEqualTo(2);
                    assertThat(heard).contains(ScheduleListener.Outcome.FIRED);
                    schedules.remove("ORDER_TIMEOUT", "heartbeat");
                });
    }

    static final List<String> nullaryRuns = new CopyOnWriteArrayList<>();

    /** Handlers written as @Scheduled methods are: no parameter, or the context alone; the payload is not read. */
    @Configuration(proxyBeanMethods = false)
    static class NullaryHandlersConfig {

        @Bean
        NightlyJobs nightlyJobs() {
            return new NightlyJobs();
        }
    }

    static class NightlyJobs {

        @DelayHandler("REMINDER")
        void nightly() {
            nullaryRuns.add("nightly");
        }

        @DelayHandler("ORDER_TIMEOUT")
        void withContext(io.github.delayqueue.core.MessageContext context) {
            nullaryRuns.add("context:" + context.id());
        }
    }

    /**
     * A schedule's handler may take no parameter, or the MessageContext alone: every tick runs it, whatever the
     * tick's payload (here one that binds to no type at all), and nothing goes to the dead letters.
     */
    @Test
    void aScheduleHandlerMayTakeNoParameterOrTheContextAlone() {
        nullaryRuns.clear();
        online(TestRedis.uniquePrefix()).withUserConfiguration(NullaryHandlersConfig.class)
                .withPropertyValues("delayqueue.schedules.nightly.queue=REMINDER",
                        "delayqueue.schedules.nightly.every=200ms")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    DelayQueueSchedules schedules = context.getBean(DelayQueueSchedules.class);
                    schedules.put(ScheduleSpec.every("ORDER_TIMEOUT", "beat", Duration.ofMillis(200))
                            .payloadJson("[1, 2]").build());
                    context.getBean(DefaultDelayQueueConsumerRegistry.class).start();
                    await().atMost(Duration.ofSeconds(15)).until(() -> nullaryRuns.stream()
                            .filter("nightly"::equals).count() >= 2 && nullaryRuns.stream()
                                    .filter(run -> run.startsWith("context:beat@")).count() >= 2);
                    DelayQueueAdmin admin = context.getBean(DelayQueueAdmin.class);
                    assertThat(admin.stats(OrderQueues.ORDER_TIMEOUT).dead()).isZero();
                    assertThat(admin.stats(OrderQueues.REMINDER).dead()).isZero();
                    schedules.remove("ORDER_TIMEOUT", "beat");
                });
    }

    /** A tick whose payload does not bind to the handler's type goes to the dead letters; the series goes on. */
    @Test
    void aScheduleWhosePayloadDoesNotBindKeepsTicking() {
        received.clear();
        online(TestRedis.uniquePrefix()).withUserConfiguration(HandlerConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            DelayQueueSchedules schedules = context.getBean(DelayQueueSchedules.class);
            schedules.put(ScheduleSpec.every("ORDER_TIMEOUT", "wrong", Duration.ofMillis(200)).payloadJson("[1, 2]").build());
            context.getBean(DefaultDelayQueueConsumerRegistry.class).start();
            await().atMost(Duration.ofSeconds(15)).until(() -> context.getBean(DelayQueueAdmin.class)
                    .stats(OrderQueues.ORDER_TIMEOUT).dead() >= 3);
            assertThat(received).isEmpty();
            schedules.remove("ORDER_TIMEOUT", "wrong");
        });
    }

    /**
     * A rolling deploy: version 1 runs, version 2 starts with another spec and wins; then an instance of version 1
     * starts again (a crash, a scale-up from the old template) while version 2 runs: the spec does not flip back.
     */
    @Test
    void duringARollingDeployTheNewestDeclarationWinsAndAnOldInstanceDoesNotBringItsSpecBack() {
        String prefix = TestRedis.uniquePrefix();
        String[] v1 = { "delayqueue.schedules.nightly.queue=REMINDER", "delayqueue.schedules.nightly.cron=0 0 2 * * *",
                "delayqueue.schedules.nightly.zone=Europe/Berlin", "delayqueue.schedules.nightly.payload=\"n\"" };
        String[] v2 = { "delayqueue.schedules.nightly.queue=REMINDER", "delayqueue.schedules.nightly.cron=0 0 3 * * *",
                "delayqueue.schedules.nightly.zone=Europe/Berlin", "delayqueue.schedules.nightly.payload=\"n\"" };
        online(prefix).withPropertyValues(v1).run(old -> {
            assertThat(old).hasNotFailed();
            DelayQueueSchedules schedules = old.getBean(DelayQueueSchedules.class);
            declared(schedules, "REMINDER", "nightly", "0 0 2 * * *");
            online(prefix).withPropertyValues(v2).run(current -> {
                assertThat(current).hasNotFailed();
                declared(schedules, "REMINDER", "nightly", "0 0 3 * * *");
                online(prefix).withPropertyValues(v1).run(oldAgain -> {
                    assertThat(oldAgain).hasNotFailed();
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> oldAgain.getBean(ScheduleDeclarations.class).isDone());
                    ScheduleInfo info = schedules.get(OrderQueues.REMINDER, "nightly").orElseThrow(); // by the code constant
                    assertThat(info.spec().expression()).isEqualTo("0 0 3 * * *");
                    assertThat(info.nextTickAt().atZone(info.spec().zone()).getHour()).isEqualTo(3);
                    assertThat(old.getBean(DelayQueueAdmin.class).stats(OrderQueues.REMINDER).pending())
                            .as("one pending tick, of the newest spec").isEqualTo(1);
                });
            });
            assertThat(schedules.remove(OrderQueues.REMINDER, "nightly")).isTrue();
            assertThat(schedules.get("REMINDER", "nightly")).isEmpty();
        });
    }
}
