package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.core.DeliveryInterceptor;
import io.github.delayqueue.spring.DelayQueueConfigurationException;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import io.github.delayqueue.spring.consumer.DefaultDelayQueueConsumerRegistry;
import io.github.delayqueue.spring.core.SendObserver;
import io.github.delayqueue.spring.metrics.DelayQueueGauges;
import io.github.delayqueue.spring.metrics.DelayQueueMetrics;
import io.github.delayqueue.spring.observation.DefaultDelayQueueProcessObservationConvention;
import io.github.delayqueue.spring.observation.DelayQueueProcessObservationConvention;
import io.github.delayqueue.spring.observation.ObservedSends;
import io.github.delayqueue.spring.observation.ObservingDeliveryInterceptor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Metrics and observations are optional: present with a {@code MeterRegistry} / {@code ObservationRegistry} bean,
 * absent without the bean or without Micrometer on the class path, where the application starts as before.
 */
class DelayQueueObservabilityAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class,
                    DelayQueueMetricsAutoConfiguration.class, DelayQueueObservationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "delayqueue.metrics.refresh-interval=1h",
                    "delayqueue.scan-packages=" + OrderQueues.class.getPackageName());

    @Test
    void withAMeterRegistryTheEngineEventsAndQueueGaugesBecomeMeters() {
        this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DelayQueueMetrics.class).hasSingleBean(DelayQueueGauges.class);
            assertThat(context.getBean(DelayQueueGauges.class).isRunning()).isTrue();
            // registered when the context started, one set per declared queue
            assertThat(context.getBean(MeterRegistry.class).find("delayqueue.queue.ready").tag("queue", "ORDER_TIMEOUT")
                    .gauge()).isNotNull();
        });
    }

    /**
     * The autoscaling signals: the ready count and the age of the oldest ready message are read from Redis, so two
     * instances show the same figures; a paused queue's due messages still count (they wait all the same), and so do
     * grouped ones (docs/operations/autoscaling.md).
     */
    @Test
    void twoInstancesReadTheSameReadyCountAndAgeAlsoWhilePaused() {
        String prefix = io.github.delayqueue.testing.TestRedis.uniquePrefix();
        ApplicationContextRunner online = this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("spring.data.redis.url=" + io.github.delayqueue.testing.TestRedis.url(),
                        "delayqueue.key-prefix=" + prefix, "delayqueue.metrics.refresh-interval=100ms");
        try {
            online.run(first -> online.run(second -> {
                DelayQueueTemplate template = first.getBean(DelayQueueTemplate.class);
                java.time.Instant dueAt = java.time.Instant.now().minusSeconds(30);
                for (int i = 0; i < 3; i++) {
                    template.sendAt(OrderQueues.PRODUCER_ONLY, "m" + i, dueAt.plusSeconds(i)); // no handler consumes it
                }
                io.github.delayqueue.spring.DelayQueueAdmin admin = first.getBean(io.github.delayqueue.spring.DelayQueueAdmin.class);
                admin.pause(OrderQueues.PRODUCER_ONLY);
                // grouped messages, due 20 s ago, in two groups of a queue nobody consumes in these contexts
                for (String group : java.util.List.of("g1", "g2")) {
                    admin.client(OrderQueues.REMINDER).sendAt(OrderQueues.REMINDER.code(), "r-" + group, dueAt.plusSeconds(10),
                            io.github.delayqueue.core.SendOptions.none().group(group));
                }
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() -> {
                    for (var context : java.util.List.of(first, second)) {
                        MeterRegistry meters = context.getBean(MeterRegistry.class);
                        assertThat(meters.get("delayqueue.queue.ready").tag("queue", "REMINDER").gauge().value())
                                .as("grouped messages count").isEqualTo(2);
                        assertThat(meters.get("delayqueue.queue.ready.age").tag("queue", "REMINDER").timeGauge()
                                .value(java.util.concurrent.TimeUnit.SECONDS)).isBetween(15.0, 300.0);
                        assertThat(meters.get("delayqueue.queue.ready").tag("queue", "PRODUCER_ONLY").gauge().value())
                                .isEqualTo(3);
                        // the oldest was due 30 s ago: at least that (the Redis clock may run a little behind this one)
                        assertThat(meters.get("delayqueue.queue.ready.age").tag("queue", "PRODUCER_ONLY").timeGauge()
                                .value(java.util.concurrent.TimeUnit.SECONDS)).isBetween(25.0, 300.0);
                    }
                });
                double a = first.getBean(MeterRegistry.class).get("delayqueue.queue.ready.age").tag("queue", "PRODUCER_ONLY")
                        .timeGauge().value(java.util.concurrent.TimeUnit.SECONDS);
                double b = second.getBean(MeterRegistry.class).get("delayqueue.queue.ready.age").tag("queue", "PRODUCER_ONLY")
                        .timeGauge().value(java.util.concurrent.TimeUnit.SECONDS);
                assertThat(Math.abs(a - b)).as("the same figure from both, but for when each read it").isLessThan(10.0);
                assertThat(first.getBean(MeterRegistry.class).get("delayqueue.queue.ready.age").tag("queue", "ORDER_TIMEOUT")
                        .timeGauge().value(java.util.concurrent.TimeUnit.SECONDS)).as("nothing ready").isZero();
            }));
        } finally {
            io.github.delayqueue.testing.TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    void theGaugesThreadStopsWithTheContext() {
        java.util.Set<Thread> before = metricsThreads();
        java.util.Set<Thread> started = new java.util.HashSet<>();
        DelayQueueGauges[] gauges = new DelayQueueGauges[1];
        this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            gauges[0] = context.getBean(DelayQueueGauges.class);
            assertThat(gauges[0].isRunning()).isTrue();
            started.addAll(metricsThreads());
            started.removeAll(before);
            assertThat(started).hasSize(1); // one thread for every queue
        });
        assertThat(gauges[0].isRunning()).isFalse();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> started.stream().noneMatch(Thread::isAlive));
    }

    private static java.util.Set<Thread> metricsThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("delayqueue-metrics") && t.isAlive())
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void everyDelayQueueListenerBeanHearsTheEnginesEvents() {
        io.github.delayqueue.core.DelayQueueListener own = new io.github.delayqueue.core.DelayQueueListener() { };
        this.runner.withBean("own", io.github.delayqueue.core.DelayQueueListener.class, () -> own).run(context ->
                assertThat(context.getBean(io.github.delayqueue.spring.core.QueueCatalog.class).require(OrderQueues.ORDER_TIMEOUT)
                        .client().options().listener()).isSameAs(own));
        this.runner.run(context -> assertThat(context.getBean(io.github.delayqueue.spring.core.QueueCatalog.class)
                .require(OrderQueues.ORDER_TIMEOUT).client().options().listener())
                .isSameAs(io.github.delayqueue.core.DelayQueueListener.NONE));
    }

    @Test
    void withoutAMeterRegistryBeanThereAreNoMetrics() {
        this.runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueMetrics.class)
                .doesNotHaveBean(DelayQueueGauges.class));
    }

    @Test
    void withoutMicrometerTheApplicationStartsAsBefore() {
        this.runner.withClassLoader(new FilteredClassLoader("io.micrometer")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DelayQueueTemplate.class)
                    .doesNotHaveBean(DelayQueueMetrics.class).doesNotHaveBean(ObservedSends.class)
                    .doesNotHaveBean(ObservingDeliveryInterceptor.class);
            assertThat(ReflectionTestUtils.getField(context.getBean(DelayQueueTemplate.class), "observer"))
                    .isSameAs(SendObserver.NONE);
        });
    }

    @Test
    void withMicrometerMetricsButNoObservationClassesOnlyMetricsApply() {
        this.runner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(DelayQueueMetrics.class)
                        .doesNotHaveBean(ObservedSends.class));
    }

    /** Both switches on, as Boot's spring.kafka.template/listener.observation-enabled. */
    private static final String[] OBSERVED = { "delayqueue.producer.observation-enabled=true",
            "delayqueue.consumer.observation-enabled=true" };

    @Test
    void byDefaultNeitherTheSendsNorTheHandlerCallsAreObservedWhileTheMetersCount() {
        this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DelayQueueMetrics.class)
                            .doesNotHaveBean(ObservedSends.class).doesNotHaveBean(ObservingDeliveryInterceptor.class);
                    assertThat(ReflectionTestUtils.getField(context.getBean(DelayQueueTemplate.class), "observer"))
                            .isSameAs(SendObserver.NONE);
                    assertThat(context.getBean(DefaultDelayQueueConsumerRegistry.class)).extracting("interceptors")
                            .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).isEmpty();
                });
    }

    @Test
    void eachSwitchTurnsOnItsOwnSide() {
        this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withPropertyValues("delayqueue.producer.observation-enabled=true").run(context -> assertThat(context)
                        .hasSingleBean(ObservedSends.class).doesNotHaveBean(ObservingDeliveryInterceptor.class));
        this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withPropertyValues("delayqueue.consumer.observation-enabled=true").run(context -> assertThat(context)
                        .doesNotHaveBean(ObservedSends.class).hasSingleBean(ObservingDeliveryInterceptor.class));
    }

    @Test
    void aQueuesSwitchOverridesTheGlobalOnesForThatQueueOnly() {
        io.micrometer.observation.ObservationHandler<io.micrometer.observation.Observation.Context> handler = c -> true;
        java.util.List<io.github.delayqueue.core.SendRequest> requests = java.util.List.of(
                io.github.delayqueue.core.SendRequest.of("x", java.time.Duration.ZERO));
        java.util.List<String> started = new java.util.concurrent.CopyOnWriteArrayList<>();
        ApplicationContextRunner recording = this.runner.withBean(ObservationRegistry.class, () -> {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(handler).observationHandler(
                    new io.micrometer.observation.ObservationHandler<io.micrometer.observation.Observation.Context>() {
                        @Override
                        public void onStart(io.micrometer.observation.Observation.Context c) {
                            started.add(c.getName());
                        }

                        @Override
                        public boolean supportsContext(io.micrometer.observation.Observation.Context c) {
                            return true;
                        }
                    });
            return registry;
        });
        // on for one queue, off globally: that queue's sends only
        recording.withPropertyValues("delayqueue.queues.order-timeout.observation-enabled=true").run(context -> {
            ObservedSends sends = context.getBean(ObservedSends.class);
            sends.observe("ORDER_TIMEOUT", requests, r -> java.util.List.of("1"));
            assertThat(started).containsExactly("delayqueue.send");
            sends.observe("OTHER", requests, r -> java.util.List.of("1"));
            assertThat(started).hasSize(1);
        });
        started.clear();
        // off for one queue, on globally: every queue but that one
        recording.withPropertyValues(OBSERVED).withPropertyValues("delayqueue.queues.ORDER_TIMEOUT.observation-enabled=false")
                .run(context -> {
                    ObservedSends sends = context.getBean(ObservedSends.class);
                    sends.observe("ORDER_TIMEOUT", requests, r -> java.util.List.of("1"));
                    assertThat(started).isEmpty();
                    sends.observe("OTHER", requests, r -> java.util.List.of("1"));
                    assertThat(started).containsExactly("delayqueue.send");
                    ObservingDeliveryInterceptor interceptor = context.getBean(ObservingDeliveryInterceptor.class);
                    boolean[] ran = new boolean[1];
                    interceptor.aroundHandle(new io.github.delayqueue.core.MessageContext("ORDER_TIMEOUT", "id-1", 1,
                            java.time.Instant.EPOCH, null, java.util.Map.of()), "x", () -> ran[0] = true);
                    assertThat(ran[0]).isTrue();
                    assertThat(started).containsExactly("delayqueue.send"); // no delayqueue.process
                });
    }

    @Test
    void withAnObservationRegistryTheTemplateAndTheConsumersAreObserved() {
        this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create).withPropertyValues(OBSERVED).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ObservedSends.class)
                    .hasSingleBean(ObservingDeliveryInterceptor.class).doesNotHaveBean(DelayQueueMetrics.class);
            assertThat(ReflectionTestUtils.getField(context.getBean(DelayQueueTemplate.class), "observer"))
                    .isSameAs(context.getBean(ObservedSends.class));
            assertThat(context.getBean(DefaultDelayQueueConsumerRegistry.class)).extracting("interceptors")
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                    .first().isSameAs(context.getBean(ObservingDeliveryInterceptor.class));
        });
    }

    @Test
    void theObservingInterceptorIsOutermostBeforeTheApplicationsOwn() {
        DeliveryInterceptor own = new DeliveryInterceptor() { };
        this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create).withPropertyValues(OBSERVED)
                .withBean("own", DeliveryInterceptor.class, () -> own).run(context -> assertThat(
                        context.getBean(DefaultDelayQueueConsumerRegistry.class)).extracting("interceptors")
                        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                        .containsExactly(context.getBean(ObservingDeliveryInterceptor.class), own));
    }

    /** The cheap setting docs/internals/benchmarks.md points to: the observations (and their trace headers) off, the meters kept. */
    @Test
    void turningTheObservationsOffLeavesTheMetrics() {
        io.micrometer.observation.ObservationHandler<io.micrometer.observation.Observation.Context> handler = c -> true;
        this.runner.withConfiguration(AutoConfigurations.of(
                org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration.class))
                .withBean("anyHandler", io.micrometer.observation.ObservationHandler.class, () -> handler)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues(OBSERVED)
                .withPropertyValues("management.observations.enable.delayqueue=false").run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DelayQueueMetrics.class);
                    java.util.List<io.github.delayqueue.core.SendRequest> requests = java.util.List.of(
                            io.github.delayqueue.core.SendRequest.of("x", java.time.Duration.ZERO));
                    java.util.List<io.github.delayqueue.core.SendRequest> sent = new java.util.ArrayList<>();
                    context.getBean(ObservedSends.class).observe("ORDER_TIMEOUT", requests, r -> {
                        sent.addAll(r);
                        return java.util.List.of("1");
                    });
                    assertThat(sent).containsExactlyElementsOf(requests); // no trace headers added
                    DelayQueueMetrics metrics = context.getBean(DelayQueueMetrics.class);
                    metrics.acknowledged("ORDER_TIMEOUT", 3);
                    assertThat(context.getBean(MeterRegistry.class).get("delayqueue.messages.acknowledged")
                            .tag("queue", "ORDER_TIMEOUT").counter().count()).isEqualTo(3.0);
                });
    }

    @Test
    void bootsObservationsEnablePropertyTurnsBothObservationsOff() {
        // an observation with no handler is a no-op anyway: one handler that takes everything
        io.micrometer.observation.ObservationHandler<io.micrometer.observation.Observation.Context> handler = c -> true;
        ApplicationContextRunner withBootObservations = this.runner.withConfiguration(AutoConfigurations.of(
                org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration.class))
                .withBean("anyHandler", io.micrometer.observation.ObservationHandler.class, () -> handler)
                .withPropertyValues(OBSERVED);
        io.github.delayqueue.core.MessageContext message = new io.github.delayqueue.core.MessageContext("ORDER_TIMEOUT",
                "id-1", 1, java.time.Instant.EPOCH, null, java.util.Map.of());
        withBootObservations.run(context -> {
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            assertThat(context).hasSingleBean(ObservingDeliveryInterceptor.class);
            assertThat(io.github.delayqueue.spring.observation.DelayQueueObservation.PROCESS.observation(null,
                    DefaultDelayQueueProcessObservationConvention.INSTANCE,
                    () -> new io.github.delayqueue.spring.observation.DelayQueueProcessContext(message), registry)
                    .isNoop()).isFalse();
        });
        withBootObservations.withPropertyValues("management.observations.enable.delayqueue=false").run(context -> {
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            assertThat(io.github.delayqueue.spring.observation.DelayQueueObservation.PROCESS.observation(null,
                    DefaultDelayQueueProcessObservationConvention.INSTANCE,
                    () -> new io.github.delayqueue.spring.observation.DelayQueueProcessContext(message), registry)
                    .isNoop()).isTrue();
            assertThat(io.github.delayqueue.spring.observation.DelayQueueObservation.SEND.observation(null,
                    io.github.delayqueue.spring.observation.DefaultDelayQueueSendObservationConvention.INSTANCE,
                    () -> new io.github.delayqueue.spring.observation.DelayQueueSendContext("ORDER_TIMEOUT", 1), registry)
                    .isNoop()).isTrue();
        });
    }

    @Test
    void anApplicationConventionReplacesTheDefault() {
        DelayQueueProcessObservationConvention own = new DefaultDelayQueueProcessObservationConvention() {
            @Override
            public String getName() {
                return "jobs.process";
            }
        };
        this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withBean(DelayQueueProcessObservationConvention.class, () -> own).withPropertyValues(OBSERVED)
                .run(context -> assertThat(ReflectionTestUtils.getField(
                        context.getBean(ObservingDeliveryInterceptor.class), "convention")).isSameAs(own));
    }

    @Test
    void aRefreshIntervalThatIsNotPositiveFailsStartupNamingTheProperty() {
        for (String interval : new String[] { "0s", "-1s" }) {
            this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                    .withPropertyValues("delayqueue.metrics.refresh-interval=" + interval)
                    .run(context -> assertThat(context).getFailure().rootCause()
                            .isInstanceOf(DelayQueueConfigurationException.class)
                            .hasMessageContaining("delayqueue.metrics.refresh-interval must be positive"));
        }
    }
}
