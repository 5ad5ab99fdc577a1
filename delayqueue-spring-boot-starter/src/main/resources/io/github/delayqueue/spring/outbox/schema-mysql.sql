-- delayqueue transactional outbox (delayqueue.producer.outbox.enabled=true), MySQL 8.0+ (InnoDB).
-- One row per message sent inside a transaction, written in that transaction and deleted once the
-- message is in Redis. Applied by delayqueue.producer.outbox.initialize-schema, or by your own migrations
-- (Flyway, Liquibase): copy it as it is.
CREATE TABLE IF NOT EXISTS delayqueue_outbox (
    id              BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    queue_code      VARCHAR(255)  NOT NULL,
    message_id      VARCHAR(256)  NOT NULL,
    send_mode       VARCHAR(16)   NOT NULL,
    delay_ms        BIGINT        NULL,
    due_at_ms       BIGINT        NULL,
    body            LONGTEXT      NOT NULL,
    created_at      TIMESTAMP(6)  NOT NULL,
    next_attempt_at TIMESTAMP(6)  NOT NULL,
    attempts        INT           NOT NULL DEFAULT 0,
    last_error      VARCHAR(1000) NULL,
    parked_at       TIMESTAMP(6)  NULL,
    INDEX delayqueue_outbox_next_attempt (next_attempt_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
