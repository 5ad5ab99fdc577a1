package io.github.delayqueue.spring.outbox;

/** The outbox contract on H2 (an embedded database: the table is created by default). */
class H2OutboxTests extends OutboxContractTests {

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=jdbc:h2:mem:outbox-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1" };
    }
}
