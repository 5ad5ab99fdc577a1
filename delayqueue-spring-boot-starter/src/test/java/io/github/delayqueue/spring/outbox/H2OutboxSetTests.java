package io.github.delayqueue.spring.outbox;

/** Job sets through the outbox on H2 (an embedded database: the table is created by default). */
class H2OutboxSetTests extends OutboxSetContractTests {

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=jdbc:h2:mem:outbox-sets-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1" };
    }
}
