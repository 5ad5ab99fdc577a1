package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.delayqueue.core.ClientOptions;
import io.github.delayqueue.core.ConsumerOptions;
import io.github.delayqueue.core.DelayQueueConsumer;
import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.test.app.PaymentTimeout;
import io.github.delayqueue.test.app.TestApplication;
import io.github.delayqueue.test.app.TestQueues;
import io.github.delayqueue.testing.TestRedis;

/**
 * Issue 32: {@link DelayQueueTester#reset()} deletes only what the test context owns. An application's own key
 * prefix, with live messages and dead letters, on a Redis the test did not start (the project's test Redis here,
 * standing for the application's Redis configured in its {@code application.yml}) survives a reset, whether the
 * test context uses that prefix (reset refuses, saying how to opt in) or a generated one of its own.
 */
class ResetScopeTests {

    private static final String QUEUE = "PAYMENT_TIMEOUT";

    /** Names another Redis for the test contexts, which then start no embedded one. */
    private static final String EMBEDDED_OFF = "DELAYQUEUE_REDIS_URL";

    @Test
    void resetRefusesAPrefixTheContextDidNotGenerateAndItsLiveMessagesAndDeadLettersSurvive() {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redis = TestRedis.newClient();
        DelayQueueClient application = DelayQueueClient.create(redis, ClientOptions.builder().keyPrefix(prefix).build());
        try {
            realData(application);
            try (ConfigurableApplicationContext context = start("--delayqueue.key-prefix=" + prefix,
                    "--delayqueue.consumer.enabled=false")) {
                DelayQueueTester tester = context.getBean(DelayQueueTester.class);
                assertThatIllegalStateException().isThrownBy(tester::reset)
                        .withMessageContaining("'" + prefix + "'")
                        .withMessageContaining("delayqueue.test.reset-configured-prefix=true")
                        .withMessageContaining("deleted nothing");
            }
            assertRealDataIntact(application);
        } finally {
            redis.shutdown();
            TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    void aContextWithItsOwnPrefixResetsOnlyThatPrefixOnTheSameRedis() {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redis = TestRedis.newClient();
        DelayQueueClient application = DelayQueueClient.create(redis, ClientOptions.builder().keyPrefix(prefix).build());
        try {
            realData(application);
            try (ConfigurableApplicationContext context = start("--delayqueue.consumer.enabled=false")) {
                DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
                template.send(TestQueues.PAYMENT_TIMEOUT,
                        new PaymentTimeout(9), Duration.ofHours(1));
                DelayQueueTester tester = context.getBean(DelayQueueTester.class);
                tester.reset();
                assertThat(tester.pending(TestQueues.PAYMENT_TIMEOUT)).isEmpty();
            }
            assertRealDataIntact(application);
        } finally {
            redis.shutdown();
            TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    void theOptInLetsResetDeleteUnderAConfiguredPrefix() {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redis = TestRedis.newClient();
        DelayQueueClient application = DelayQueueClient.create(redis, ClientOptions.builder().keyPrefix(prefix).build());
        try {
            realData(application);
            try (ConfigurableApplicationContext context = start("--delayqueue.key-prefix=" + prefix,
                    "--delayqueue.consumer.enabled=false", "--delayqueue.test.reset-configured-prefix=true")) {
                context.getBean(DelayQueueTester.class).reset();
            }
            assertThat(application.stats(QUEUE).pending()).isZero();
            assertThat(application.deadLetters(QUEUE, 10)).isEmpty();
        } finally {
            redis.shutdown();
            TestRedis.deleteKeys(prefix);
        }
    }

    @Test
    void onTheEmbeddedRedisTheTestsStartedAConfiguredPrefixIsTheTestsOwn() {
        assumeTrue(System.getenv(EMBEDDED_OFF) == null && System.getProperty(EMBEDDED_OFF) == null,
                "runs only where the test context starts its embedded Redis");
        String prefix = TestRedis.uniquePrefix();
        SpringApplication application = new SpringApplication(TestApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.addInitializers(context -> new DelayQueueTestContextCustomizer().customizeContext(context, null));
        try (ConfigurableApplicationContext context = application.run("--delayqueue.key-prefix=" + prefix,
                "--delayqueue.consumer.enabled=false")) {
            assertThat(context.containsBean(DelayQueueTestContextCustomizer.EMBEDDED_REDIS_BEAN)).isTrue();
            context.getBean(DelayQueueTemplate.class).send(TestQueues.PAYMENT_TIMEOUT, new PaymentTimeout(9),
                    Duration.ofHours(1));
            DelayQueueTester tester = context.getBean(DelayQueueTester.class);
            tester.reset();
            assertThat(tester.pending(TestQueues.PAYMENT_TIMEOUT)).isEmpty();
        }
    }

    /** The application's own messages: two live ones and one dead letter, written before any test context starts. */
    private static void realData(DelayQueueClient application) {
        application.send(QUEUE, new PaymentTimeout(1), Duration.ofHours(1), SendOptions.id("order-1"));
        application.send(QUEUE, new PaymentTimeout(2), Duration.ofHours(2), SendOptions.id("order-2"));
        // a payload that does not bind goes straight to the dead letters
        application.send(QUEUE, "not an order", Duration.ZERO, SendOptions.id("order-3"));
        DelayQueueConsumer consumer = application.newConsumer(QUEUE, PaymentTimeout.class, (payload, context) -> {
        }, ConsumerOptions.DEFAULTS);
        consumer.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> application.deadLetters(QUEUE, 10).size() == 1);
        } finally {
            consumer.stop();
        }
        assertRealDataIntact(application);
    }

    private static void assertRealDataIntact(DelayQueueClient application) {
        assertThat(application.message(QUEUE, "order-1")).isPresent();
        assertThat(application.message(QUEUE, "order-2")).isPresent();
        assertThat(application.deadLetters(QUEUE, 10)).extracting(letter -> letter.id()).containsExactly("order-3");
    }

    /** The test application as a test context starts it, with the customizer, on the project's test Redis. */
    private static ConfigurableApplicationContext start(String... args) {
        SpringApplication application = new SpringApplication(TestApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.addInitializers(context -> new DelayQueueTestContextCustomizer().customizeContext(context, null));
        String[] all = new String[args.length + 1];
        all[0] = "--spring.data.redis.url=" + TestRedis.url();
        System.arraycopy(args, 0, all, 1, args.length);
        return application.run(all);
    }
}
