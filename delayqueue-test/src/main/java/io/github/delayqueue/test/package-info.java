/**
 * Test support for applications using delayqueue, for test scope: {@link io.github.delayqueue.test.DelayQueueTester}
 * (inspect pending messages, run them now through the real consumer and handler, wait until queues are idle, read
 * dead letters), a random key prefix per test context, and an embedded Redis when the application configures none.
 */
@NullMarked
package io.github.delayqueue.test;

import org.jspecify.annotations.NullMarked;
