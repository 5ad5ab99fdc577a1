package io.github.delayqueue.test;

import java.util.List;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;

/**
 * Spring's test-context SPI (registered in {@code META-INF/spring.factories}), so that what it sets up applies to
 * test contexts only, never to an application that happens to have {@code delayqueue-test} on its classpath: see
 * {@link DelayQueueTestContextCustomizer}.
 */
final class DelayQueueTestContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return new DelayQueueTestContextCustomizer();
    }
}
