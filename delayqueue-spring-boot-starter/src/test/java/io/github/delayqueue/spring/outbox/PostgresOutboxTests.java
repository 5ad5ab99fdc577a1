package io.github.delayqueue.spring.outbox;

/**
 * The outbox contract on a real PostgreSQL ({@link TestPostgres}: embedded, or {@code DELAYQUEUE_POSTGRES_URL}),
 * which is not an embedded database for Spring Boot: the table is created with {@code initialize-schema=always}.
 */
class PostgresOutboxTests extends OutboxContractTests {

    private final String url = TestPostgres.newSchema();

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=" + this.url, "delayqueue.producer.outbox.initialize-schema=always" };
    }
}
