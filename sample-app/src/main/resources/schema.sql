CREATE TABLE IF NOT EXISTS orders (
    id             BIGINT AUTO_INCREMENT PRIMARY KEY,
    reference      VARCHAR(36)  NOT NULL UNIQUE,
    customer       VARCHAR(200) NOT NULL,
    amount_cents   BIGINT       NOT NULL,
    status         VARCHAR(20)  NOT NULL,
    created_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    payment_due_at TIMESTAMP WITH TIME ZONE NOT NULL,
    closed_at      TIMESTAMP WITH TIME ZONE
);

CREATE TABLE IF NOT EXISTS meetings (
    id          BIGINT AUTO_INCREMENT PRIMARY KEY,
    reference   VARCHAR(36)  NOT NULL UNIQUE,
    title       VARCHAR(200) NOT NULL,
    starts_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    attendees   VARCHAR(2000) NOT NULL,
    remind_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    reminded_at TIMESTAMP WITH TIME ZONE
);
