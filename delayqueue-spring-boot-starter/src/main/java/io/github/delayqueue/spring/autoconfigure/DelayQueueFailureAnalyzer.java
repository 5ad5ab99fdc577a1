package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.spring.DelayQueueConfigurationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link DelayQueueConfigurationException} with its description and the action to take. */
final class DelayQueueFailureAnalyzer extends AbstractFailureAnalyzer<DelayQueueConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, DelayQueueConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
