/**
 * The producer side and the queue catalog: the template and admin implementations, the declared
 * queues with their engine clients and the settings the auto-configuration resolved for them
 * ({@code QueueCatalog.ClientPlan}, {@code QueueConsumerSettings}, {@code HandlerOverrides}), and the sends deferred
 * to after a transaction commits. Internal to the starter. Like every runtime package of the starter it never
 * imports {@code autoconfigure}: the auto-configuration reads the properties and hands plain values down.
 */
@NullMarked
package io.github.delayqueue.spring.core;

import org.jspecify.annotations.NullMarked;
