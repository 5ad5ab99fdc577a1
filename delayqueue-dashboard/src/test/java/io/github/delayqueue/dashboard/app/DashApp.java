package io.github.delayqueue.dashboard.app;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayMessageHandler;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.github.delayqueue.testing.TestRedis;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Component;

/**
 * The application the dashboard tests run: Spring MVC, Spring Security with its CSRF protection on (every page
 * open to all, as a test needs; the docs show how to lock the path), the actuator, a {@link SimpleMeterRegistry},
 * and handlers the tests steer.
 */
@SpringBootApplication
public class DashApp {

    /** The dashboard settings of the tests with actions on. */
    public static final String[] ACTIONS_ON = { "delayqueue.dashboard.enabled=true",
            "delayqueue.dashboard.actions-enabled=true", "delayqueue.dashboard.show-payloads=true",
            "delayqueue.dashboard.refresh-interval=1s", "spring.main.banner-mode=off" };

    /** Every page open to all; CSRF protection on unless {@code dash-app.csrf=false} (an application without it). */
    @Bean
    SecurityFilterChain security(HttpSecurity http, @Value("${dash-app.csrf:true}") boolean csrf) throws Exception {
        http.authorizeHttpRequests(requests -> requests.anyRequest().permitAll());
        if (!csrf) {
            http.csrf(AbstractHttpConfigurer::disable);
        }
        return http.build();
    }

    /**
     * Deletes this context's keys when it closes (Spring keeps test contexts until the tests end); an embedded
     * Redis goes away with its keys.
     */
    @Bean
    DisposableBean deleteTestKeys(@Value("${delayqueue.key-prefix}") String prefix) {
        return () -> {
            if (!TestRedis.isEmbedded()) {
                TestRedis.deleteKeys(prefix);
            }
        };
    }

    /**
     * The starter records its meters here (delayqueue.handler.duration, delayqueue.lateness, ...). Lateness
     * publishes its p99, as an application gets with management.metrics.distribution.percentiles.delayqueue.lateness.
     */
    @Bean
    MeterRegistry meterRegistry() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return id.getName().equals("delayqueue.lateness")
                        ? DistributionStatisticConfig.builder().percentiles(0.99).build().merge(config) : config;
            }
        });
        return registry;
    }

    public record Email(String to, String subject) {
    }

    /** Delivers e-mails to a list; an address in {@link #failFor} fails (one attempt: straight to the dead letters). */
    @Component
    @DelayHandler(value = "EMAILS", maxAttempts = "1")
    public static class EmailHandler implements DelayMessageHandler<Email> {

        public final List<Email> delivered = new CopyOnWriteArrayList<>();
        public final Set<String> failFor = ConcurrentHashMap.newKeySet();

        @Override
        public void handle(Email email) {
            if (this.failFor.contains(email.to())) {
                throw new IllegalStateException("mailbox <" + email.to() + "> is full");
            }
            this.delivered.add(email);
        }
    }

    /** Holds its message until {@link #release()}, so that the test sees it in flight. */
    @Component
    @DelayHandler("SLOW")
    public static class SlowHandler implements ContextAwareDelayMessageHandler<String> {

        private volatile CountDownLatch gate = new CountDownLatch(1);

        @Override
        public void handle(String payload, MessageContext context) throws InterruptedException {
            context.progress("held"); // SLOW keeps its history: its status in flight shows where it runs
            this.gate.await(60, TimeUnit.SECONDS);
        }

        /** From now on, hold each message until {@link #release()}. */
        public void hold() {
            this.gate = new CountDownLatch(1);
        }

        public void release() {
            this.gate.countDown();
        }
    }
}
