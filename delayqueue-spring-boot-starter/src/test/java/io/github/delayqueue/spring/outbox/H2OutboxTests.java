package io.github.delayqueue.spring.outbox;

import java.time.Duration;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.autoconfigure.fixtures.orders.OrderQueues;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The outbox contract on H2 (an embedded database: the table is created by default), and H2-only cases. */
@ExtendWith(OutputCaptureExtension.class)
class H2OutboxTests extends OutboxContractTests {

    @Override
    String[] databaseProperties() {
        return new String[] { "spring.datasource.url=jdbc:h2:mem:outbox-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1" };
    }

    /** A transaction manager of another resource: it holds no connection of the DataSource. */
    static final class OtherResourceTransactionManager extends AbstractPlatformTransactionManager {

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }

    @Test
    void aSendInATransactionOfAnotherResourceIsWrittenAfterTheCommitWithoutTheOutboxAndThatIsLoggedOnce(
            CapturedOutput output) {
        runner().run(context -> {
            clear(context);
            DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
            TransactionTemplate other = new TransactionTemplate(new OtherResourceTransactionManager());
            for (String id : new String[] { "other-1", "other-2" }) {
                other.executeWithoutResult(status -> {
                    template.send(OrderQueues.ORDER_TIMEOUT, id, Duration.ofHours(1), SendOptions.id(id));
                    assertThat(this.client.cancel("ORDER_TIMEOUT", id)).as("deferred to the commit").isFalse();
                });
                assertThat(this.client.cancel("ORDER_TIMEOUT", id)).as("written after the commit").isTrue();
            }
            assertThat(rows(context, "")).isZero();
            assertThat(output.toString().split("does not run on the outbox's DataSource", -1)).hasSize(2);
        });
    }
}
