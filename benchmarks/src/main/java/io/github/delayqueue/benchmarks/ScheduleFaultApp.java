package io.github.delayqueue.benchmarks;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.schedule.Schedules;
import io.github.delayqueue.spring.DelayHandler;
import io.github.delayqueue.spring.DelayQueueCode;
import io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.spring.autoconfigure.DelayQueueScheduleAutoConfiguration;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * One application instance of {@link ScheduleFaultRun}, started by it as a child JVM:
 * {@code ScheduleFaultApp delayqueue|shedlock <instance> <redis-url> <key-prefix> <work-ms>}. Each run of the job
 * appends {@code "<tick-second> <instance>"} to the Redis list {@code <key-prefix>:runs} when it starts, then works
 * for {@code work-ms}, then appends the same to {@code <key-prefix>:runs:done}. Prints {@value #READY} once it is started.
 *
 * <ul>
 * <li>{@code delayqueue}: the starter with the schedule {@code delayqueue.schedules.tick} ({@code every: 1s}) on the
 * queue {@code FAULT_TICKS}, lease ({@code visibility-timeout}) 5 s; the tick second is the tick's instant
 * (header {@code dq-tick}) in whole seconds.</li>
 * <li>{@code shedlock}: {@code @Scheduled(cron = "* * * * * *")} with {@code @SchedulerLock(lockAtMostFor = "5s",
 * lockAtLeastFor = "500ms")} and ShedLock's Redis provider (Spring Data Redis on Lettuce); the tick second is the
 * wall-clock second the job started in (the cron fires at whole seconds, the same on every instance).</li>
 * </ul>
 */
public final class ScheduleFaultApp {

    /** The line printed once the application is ready. */
    static final String READY = "SCHEDULE-FAULT-READY";

    enum FaultQueues implements DelayQueueCode {
        FAULT_TICKS
    }

    /** The payload of every tick of the schedule. */
    public record Tick(@Nullable String kind) {
    }

    /** Our side: each tick of the schedule runs here, on one instance. */
    static class TickHandler {

        private final RedissonClient redisson;
        private final String instance;
        private final String list;
        private final long workMs;

        TickHandler(RedissonClient redisson, @Value("${fault.instance}") String instance,
                @Value("${fault.list}") String list, @Value("${fault.work-ms}") long workMs) {
            this.redisson = redisson;
            this.instance = instance;
            this.list = list;
            this.workMs = workMs;
        }

        @DelayHandler("FAULT_TICKS")
        void handle(Tick tick, MessageContext context) throws InterruptedException {
            String tickMs = context.headers().get(Schedules.TICK_HEADER);
            if (tickMs == null || !Character.isDigit(tickMs.charAt(0))) {
                return; // a manual trigger: not part of the series
            }
            String run = Math.floorDiv(Long.parseLong(tickMs), 1000L) + " " + instance;
            redisson.<String>getList(list, StringCodec.INSTANCE).add(run);
            Thread.sleep(workMs);
            redisson.<String>getList(list + ":done", StringCodec.INSTANCE).add(run);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DelayQueueAutoConfiguration.class, DelayQueueScheduleAutoConfiguration.class})
    @Import(TickHandler.class)
    static class DelayQueueApp {
    }

    /** The ShedLock side: the job every second, on whichever instance takes the lock. */
    static class ShedLockJob {

        private final StringRedisTemplate redis;
        private final String instance;
        private final String list;
        private final long workMs;

        ShedLockJob(StringRedisTemplate redis, @Value("${fault.instance}") String instance,
                @Value("${fault.list}") String list, @Value("${fault.work-ms}") long workMs) {
            this.redis = redis;
            this.instance = instance;
            this.list = list;
            this.workMs = workMs;
        }

        @Scheduled(cron = "* * * * * *")
        @SchedulerLock(name = "fault-tick", lockAtMostFor = "5s", lockAtLeastFor = "500ms")
        public void run() throws InterruptedException {
            String run = Math.floorDiv(System.currentTimeMillis(), 1000L) + " " + instance;
            redis.opsForList().rightPush(list, run);
            Thread.sleep(workMs);
            redis.opsForList().rightPush(list + ":done", run);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "5s")
    @Import(ShedLockJob.class)
    static class ShedLockApp {

        @Bean
        LettuceConnectionFactory redisConnectionFactory(@Value("${fault.redis-url}") String url) {
            java.net.URI uri = java.net.URI.create(url);
            RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort());
            String userInfo = uri.getUserInfo();
            if (userInfo != null && !userInfo.isEmpty()) { // redis://[user]:password@host:port
                int colon = userInfo.indexOf(':');
                if (colon > 0) {
                    config.setUsername(userInfo.substring(0, colon));
                }
                config.setPassword(colon < 0 ? userInfo : userInfo.substring(colon + 1));
            }
            return new LettuceConnectionFactory(config);
        }

        @Bean
        StringRedisTemplate stringRedisTemplate(LettuceConnectionFactory factory) {
            return new StringRedisTemplate(factory);
        }

        @Bean
        LockProvider lockProvider(LettuceConnectionFactory factory, @Value("${fault.prefix}") String prefix) {
            return new RedisLockProvider(factory, "fault", prefix + ":shedlock");
        }
    }

    private ScheduleFaultApp() {
    }

    public static void main(String[] args) {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: ScheduleFaultApp delayqueue|shedlock <instance> <redis-url> <key-prefix> <work-ms>");
        }
        String side = args[0];
        String prefix = args[3];
        Class<?> app = switch (side) {
            case "delayqueue" -> DelayQueueApp.class;
            case "shedlock" -> ShedLockApp.class;
            default -> throw new IllegalArgumentException("side is '" + side + "': delayqueue or shedlock");
        };
        ApplicationListener<ApplicationReadyEvent> ready = event -> System.out.println(READY);
        new SpringApplicationBuilder(app).web(WebApplicationType.NONE).logStartupInfo(false).listeners(ready)
                .properties("spring.main.banner-mode=off", "logging.level.root=WARN",
                        "fault.instance=" + args[1], "fault.redis-url=" + args[2], "fault.prefix=" + prefix,
                        "fault.list=" + prefix + ":runs", "fault.work-ms=" + Long.parseLong(args[4]),
                        "spring.data.redis.url=" + args[2], "delayqueue.key-prefix=" + prefix,
                        "delayqueue.scan-packages=" + FaultQueues.class.getPackageName(),
                        "delayqueue.queues.FAULT_TICKS.visibility-timeout=5s",
                        "delayqueue.schedules.tick.queue=FAULT_TICKS", "delayqueue.schedules.tick.every=1s",
                        "delayqueue.schedules.tick.payload={\"kind\":\"fault\"}")
                .run();
        // runs until it is stopped (SIGTERM: the context closes gracefully) or killed (SIGKILL)
        try {
            Thread.currentThread().join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
