/**
 * Auto-configuration of the delayqueue starter: the {@code @AutoConfiguration} classes, the
 * {@code delayqueue.*} properties and the mapping of settings and {@code spring.data.redis.*}, and the
 * failure analyzers. Public: {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueAutoConfiguration}, {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueHealthContributorAutoConfiguration}, {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueProperties} and {@link
 * io.github.delayqueue.spring.autoconfigure.DelayQueueRedissonConfigCustomizer}; the rest is internal. The runtime
 * classes live in the sibling packages {@code annotation}, {@code consumer}, {@code core}, {@code redis}
 * and {@code health}.
 */
@NullMarked
package io.github.delayqueue.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
