package io.github.delayqueue.spring.outbox;

/** Job sets through the outbox on a real PostgreSQL ({@link TestPostgres}: embedded, or {@code DELAYQUEUE_POSTGRES_URL}). */
class PostgresOutboxSetTests extends OutboxSetContractTests {

    private final String url = TestPostgres.newSchema();

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=" + this.url, "delayqueue.producer.outbox.initialize-schema=always" };
    }
}
