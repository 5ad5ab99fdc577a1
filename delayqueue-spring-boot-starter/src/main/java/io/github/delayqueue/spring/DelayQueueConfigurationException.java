package io.github.delayqueue.spring;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when the application's delayqueue setup cannot work: an undeclared, duplicate or
 * invalid queue code, an unusable {@link DelayHandler @DelayHandler} (wrong signature, prototype scope,
 * {@code @Async}, a payload type that cannot be bound), or settings the engine rejects. The message
 * names the culprit (bean, method, enum constant or property) and {@link #action()} says how to fix
 * it; Spring Boot prints both in its "APPLICATION FAILED TO START" report. Tests can assert on it by
 * type.
 */
public final class DelayQueueConfigurationException extends IllegalStateException {

    private final String action;

    /**
     * @param description what is wrong, naming the culprit
     * @param action      how to fix it
     */
    public DelayQueueConfigurationException(String description, String action) {
        this(description, action, null);
    }

    /**
     * @param description what is wrong, naming the culprit
     * @param action      how to fix it
     * @param cause       the underlying failure, if any
     */
    public DelayQueueConfigurationException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** How to fix the misconfiguration, for example which attribute or property to change. */
    public String action() {
        return this.action;
    }
}
