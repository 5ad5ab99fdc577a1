-- delayqueue transactional outbox (delayqueue.producer.outbox.enabled=true), MariaDB 10.6+ (InnoDB).
-- One row per intent (a message sent inside a transaction, written in that transaction; a cancel or a
-- reschedule), deleted once it is in Redis. A row's id is its intent's version: per message id, Redis
-- applies an intent only above the last version it applied. namespace: the application that wrote
-- the row (delayqueue.producer.outbox.namespace); a relay takes only its own. Times are DATETIME(6) in
-- UTC (written with UTC_TIMESTAMP(6)), whatever the session's time zone.
-- Applied by delayqueue.producer.outbox.initialize-schema, or by your own migrations (Flyway,
-- Liquibase): copy it as it is.
CREATE TABLE IF NOT EXISTS delayqueue_outbox (
    id              BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    namespace       VARCHAR(255)  NULL,
    queue_code      VARCHAR(255)  NOT NULL,
    message_id      VARCHAR(256)  NOT NULL,
    send_mode       VARCHAR(16)   NOT NULL,
    delay_ms        BIGINT        NULL,
    due_at_ms       BIGINT        NULL,
    body            LONGTEXT      NOT NULL,
    created_at      DATETIME(6)   NOT NULL,
    next_attempt_at DATETIME(6)   NOT NULL,
    attempts        INT           NOT NULL DEFAULT 0,
    last_error      VARCHAR(1000) NULL,
    parked_at       DATETIME(6)   NULL,
    INDEX delayqueue_outbox_next_attempt (next_attempt_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
ALTER TABLE delayqueue_outbox ADD COLUMN IF NOT EXISTS namespace VARCHAR(255) NULL;
