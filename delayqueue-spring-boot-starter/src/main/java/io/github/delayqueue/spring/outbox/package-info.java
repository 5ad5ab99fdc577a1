/**
 * The transactional outbox on a JDBC DataSource: intents written in the application's transaction
 * ({@code JdbcSendOutbox}) and relayed to Redis by {@code OutboxRelay} with their versions, so a replay never
 * overwrites a newer intent. Internal to the starter: public only so that its other packages and the
 * auto-configuration can use it.
 */
@NullMarked
package io.github.delayqueue.spring.outbox;

import org.jspecify.annotations.NullMarked;
