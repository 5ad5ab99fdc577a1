package io.github.delayqueue.spring.faults;

import java.util.concurrent.ThreadLocalRandom;

import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.faults.FaultSupport;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayHandler;

/**
 * The application that {@link GracefulShutdownUnderLoadTest} runs in a JVM of its own and stops with SIGTERM.
 * Its handler takes 200-600 ms and records, in Redis under {@code <delayqueue.key-prefix>:faults:}, when each
 * delivery started and finished (this JVM's wall clock, the same machine as the test) and whether it was
 * interrupted; a listener records when the context close (shutdown) began. Exits by itself after 120 s in
 * case the test that started it died.
 */
@SpringBootApplication
public class ShutdownApp {

    public static void main(String[] args) {
        FaultSupport.haltAfter(120);
        SpringApplication.run(ShutdownApp.class, args);
        System.out.println("shutdown app running, pid " + ProcessHandle.current().pid());
    }

    /** Where the handler and the close listener write. */
    static String key(String prefix, String what) {
        return prefix + ":faults:" + what;
    }

    /** The handler; also records when the context close began (published before the consumers stop). */
    @Component
    @DelayHandler("SHUTDOWN_WORK")
    static class WorkHandler implements ContextAwareDelayMessageHandler<String>, ApplicationListener<ContextClosedEvent> {

        private final RedissonClient redisson;
        private final String prefix;

        WorkHandler(RedissonClient redisson, org.springframework.core.env.Environment env) {
            this.redisson = redisson;
            this.prefix = env.getRequiredProperty("delayqueue.key-prefix");
        }

        @Override
        public void handle(String payload, MessageContext context) throws Exception {
            String entry = context.id() + "#" + context.attempt();
            redisson.getMap(key(prefix, "started"), StringCodec.INSTANCE).fastPut(entry,
                    Long.toString(System.currentTimeMillis()));
            try {
                Thread.sleep(200 + ThreadLocalRandom.current().nextLong(400));
            } catch (InterruptedException e) {
                redisson.getSet(key(prefix, "interrupted"), StringCodec.INSTANCE).add(entry);
                throw e;
            }
            redisson.getMap(key(prefix, "finished"), StringCodec.INSTANCE).fastPut(entry,
                    Long.toString(System.currentTimeMillis()));
        }

        @Override
        public void onApplicationEvent(ContextClosedEvent event) {
            redisson.getBucket(key(prefix, "close-began"), StringCodec.INSTANCE)
                    .set(Long.toString(System.currentTimeMillis()));
        }
    }
}
