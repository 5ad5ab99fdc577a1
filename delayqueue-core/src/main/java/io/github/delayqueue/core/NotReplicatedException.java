package io.github.delayqueue.core;

/**
 * A send was written on the Redis master but fewer replicas than {@link ClientOptions#waitForReplicas()} acknowledged it
 * within {@link ClientOptions#replicaTimeout()}. The message is in Redis and will be delivered unless that master fails
 * before a replica has it, in which case it is lost. To make sure, send it again with the same id and
 * {@link SendMode#IF_ABSENT} (a retry does not write it twice), or alert.
 */
public final class NotReplicatedException extends DelayQueueException {

    private final int required;
    private final int acknowledged;

    public NotReplicatedException(String message, int required, int acknowledged) {
        super(message, null);
        this.required = required;
        this.acknowledged = acknowledged;
    }

    /** Replicas asked for. */
    public int required() {
        return required;
    }

    /** Replicas that acknowledged the write in time. */
    public int acknowledged() {
        return acknowledged;
    }
}
