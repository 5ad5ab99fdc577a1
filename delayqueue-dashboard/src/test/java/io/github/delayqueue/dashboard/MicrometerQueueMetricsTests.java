package io.github.delayqueue.dashboard;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.StaticListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Throughput and lateness read from timers registered under the starter's names, on a clock the test moves. */
class MicrometerQueueMetricsTests {

    private final MutableClock clock = new MutableClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private MicrometerQueueMetrics metrics(MeterRegistry registry) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        if (registry != null) {
            beans.addBean("registry", registry);
        }
        return new MicrometerQueueMetrics(beans.getBeanProvider(MeterRegistry.class), this.clock);
    }

    private Timer handler(String queue, String outcome) {
        return Timer.builder(MicrometerQueueMetrics.HANDLER_DURATION).tag("queue", queue).tag("outcome", outcome)
                .register(this.registry);
    }

    private static void record(Timer timer, int times) {
        for (int i = 0; i < times; i++) {
            timer.record(1, TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void throughputIsTheCountsDifferenceOverTheSampledWindow() {
        MicrometerQueueMetrics metrics = metrics(this.registry);
        Timer ok = handler("EMAILS", "acknowledged");
        Timer dead = handler("EMAILS", "dead_lettered");
        Timer later = handler("EMAILS", "retry_later");
        record(ok, 10);

        QueueMetrics.Figures first = metrics.read(List.of("EMAILS")).get("EMAILS");
        assertThat(first.handledPerMinute()).as("one sample: no rate yet").isNull();

        this.clock.advance(Duration.ofSeconds(30));
        record(ok, 50);
        record(dead, 5);
        record(later, 5);
        QueueMetrics.Figures second = metrics.read(List.of("EMAILS")).get("EMAILS");
        assertThat(second.handledPerMinute()).isCloseTo(120.0, within(1e-9));
        assertThat(second.failedPerMinute()).isCloseTo(10.0, within(1e-9));
        assertThat(second.windowSeconds()).isEqualTo(30);

        // samples older than the window are dropped: the rate then spans the newer ones only
        this.clock.advance(MicrometerQueueMetrics.WINDOW);
        record(ok, 100);
        QueueMetrics.Figures third = metrics.read(List.of("EMAILS")).get("EMAILS");
        assertThat(third.windowSeconds()).isEqualTo(MicrometerQueueMetrics.WINDOW.toSeconds());
        assertThat(third.handledPerMinute()).isCloseTo(100.0 / 5, within(1e-9));
    }

    @Test
    void latenessIsTheP99WhenPublishedElseTheMax() {
        MicrometerQueueMetrics metrics = metrics(this.registry);
        Timer withPercentile = Timer.builder(MicrometerQueueMetrics.LATENESS).tag("queue", "A").publishPercentiles(0.99)
                .register(this.registry);
        Timer plain = Timer.builder(MicrometerQueueMetrics.LATENESS).tag("queue", "B").register(this.registry);
        for (int i = 0; i < 100; i++) {
            withPercentile.record(i < 98 ? 1 : 500, TimeUnit.MILLISECONDS);
            plain.record(i == 0 ? 40 : 2, TimeUnit.MILLISECONDS);
        }

        Map<String, QueueMetrics.Figures> figures = metrics.read(List.of("A", "B", "C"));
        assertThat(figures.get("A").latenessStat()).isEqualTo("p99");
        assertThat(figures.get("A").latenessMillis()).isGreaterThan(400.0);
        assertThat(figures.get("B").latenessStat()).isEqualTo("max");
        assertThat(figures.get("B").latenessMillis()).isCloseTo(40.0, within(1e-6));
        assertThat(figures.get("A").handledPerMinute()).as("no handler timer").isNull();
        assertThat(figures).as("no meter at all for C").doesNotContainKey("C");
    }

    @Test
    void withoutARegistryNothingIsKnown() {
        assertThat(metrics(null).read(List.of("EMAILS"))).isEmpty();
        assertThat(QueueMetrics.NONE.read(List.of("EMAILS"))).isEmpty();
    }

    private static final class MutableClock extends Clock {

        private Instant now = Instant.parse("2026-11-24T12:00:00Z");

        void advance(Duration duration) {
            this.now = this.now.plus(duration);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return this.now;
        }

        @Override
        public long millis() {
            return this.now.toEpochMilli();
        }
    }
}
