/**
 * The producer side and the queue catalog: the template and admin implementations, the declared
 * queues with their engine clients, and the sends deferred to after a transaction commits. Internal to
 * the starter.
 */
@NullMarked
package io.github.delayqueue.spring.core;

import org.jspecify.annotations.NullMarked;
