package io.github.delayqueue.spring.autoconfigure;

/**
 * A misconfiguration found at startup: undeclared or duplicate codes, unusable handlers, invalid
 * settings. {@link DelayQueueFailureAnalyzer} turns it into Boot's "APPLICATION FAILED TO START" report.
 */
final class DelayQueueConfigurationException extends IllegalStateException {

    private final String action;

    DelayQueueConfigurationException(String description, String action) {
        this(description, action, null);
    }

    DelayQueueConfigurationException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    String action() {
        return this.action;
    }
}
