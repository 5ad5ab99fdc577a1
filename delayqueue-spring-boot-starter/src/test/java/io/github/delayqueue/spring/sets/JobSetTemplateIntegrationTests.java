package io.github.delayqueue.spring.sets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.Chain;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;
import io.github.delayqueue.spring.sets.SetsApp.Queues;
import io.github.delayqueue.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Job sets and chains through the auto-configured template and admin, against a real Redis ({@link TestRedis}): sets
 * built with the codes' queue names, members growing their own set from a handler, chains, a set's status, bad input
 * refused at the call, and sends inside a transaction written after its commit only.
 */
@SpringBootTest(classes = SetsApp.class)
class JobSetTemplateIntegrationTests {

    private static final String PREFIX = TestRedis.uniquePrefix();
    private static final String OTHER_PREFIX = TestRedis.uniquePrefix();
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", TestRedis::url);
        registry.add("delayqueue.key-prefix", () -> PREFIX);
        registry.add("spring.main.banner-mode", () -> "off");
        registry.add("delayqueue.queues.MAILS.retry.max-attempts", () -> "1");
        registry.add("delayqueue.queues.ELSEWHERE.key-prefix", () -> OTHER_PREFIX);
    }

    @AfterAll
    static void deleteKeys() {
        TestRedis.deleteKeys(PREFIX);
        TestRedis.deleteKeys(OTHER_PREFIX);
    }

    @Autowired
    DelayQueueTemplate template;

    @Autowired
    DelayQueueAdmin admin;

    @Autowired
    TransactionTemplate transactions;

    private static List<SendRequest> mails(String prefix, int count) {
        List<SendRequest> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(SendRequest.of(prefix + i, Duration.ZERO, SendOptions.id(prefix + i)));
        }
        return out;
    }

    private static List<Map<String, String>> callbacksOf(String set) {
        return SetsApp.CALLBACKS.stream().filter(h -> set.equals(h.get(JobSet.SET_ID_HEADER))).toList();
    }

    @Test
    void aSetBuiltWithTheCodesRunsItsMembersInTheSetAndSendsItsSuccessOnce() throws Exception {
        String set = this.template.sendSet(JobSet.builder()
                .add(Queues.MAILS.code(), mails("campaign-a-", 20))
                .onSuccess(Queues.REPORT.code(), SendRequest.of("done", Duration.ZERO,
                        SendOptions.none().header("campaign", "a")))
                .onComplete(Queues.REPORT.code(), SendRequest.of("closed", Duration.ZERO))
                .build());

        await().atMost(DEADLINE).until(() -> callbacksOf(set).size() == 2);
        for (int i = 0; i < 20; i++) {
            assertThat(SetsApp.HANDLED).containsEntry("campaign-a-" + i, set);
        }
        assertThat(callbacksOf(set)).extracting(h -> h.get(JobSet.EVENT_HEADER))
                .containsExactlyInAnyOrder("success", "complete");
        assertThat(callbacksOf(set)).filteredOn(h -> "success".equals(h.get(JobSet.EVENT_HEADER)))
                .singleElement().satisfies(h -> assertThat(h).containsEntry("campaign", "a"));
        SetStatus status = this.admin.setStatus(set).orElseThrow();
        assertThat(status.total()).isEqualTo(20);
        assertThat(status.acknowledged()).isEqualTo(20);
        assertThat(status.complete()).isTrue();
        assertThat(status.successSent()).isTrue();
        assertThat(status.completeSent()).isTrue();
        Thread.sleep(300); // a second callback would come within this
        assertThat(callbacksOf(set)).hasSize(2);
    }

    @Test
    void aDeadMemberIsListedInTheStatusAndTheSetCompletesWithoutItsSuccess() {
        String set = this.template.sendSet(JobSet.builder().id("dead-" + System.nanoTime())
                .add(Queues.MAILS.code(), List.of(SendRequest.of("ok-d", Duration.ZERO, SendOptions.id("ok-d")),
                        SendRequest.of("fail-d", Duration.ZERO, SendOptions.id("fail-d"))))
                .onSuccess(Queues.REPORT.code(), SendRequest.of("done", Duration.ZERO))
                .onComplete(Queues.REPORT.code(), SendRequest.of("closed", Duration.ZERO))
                .build());

        await().atMost(DEADLINE).until(() -> callbacksOf(set).size() == 1);
        assertThat(callbacksOf(set)).singleElement().satisfies(h -> assertThat(h).containsEntry(JobSet.EVENT_HEADER,
                "complete"));
        SetStatus status = this.admin.setStatus(set).orElseThrow();
        assertThat(status.dead()).isEqualTo(1);
        assertThat(status.acknowledged()).isEqualTo(1);
        assertThat(status.deadMembers()).containsExactly(new SetStatus.Member("MAILS", "fail-d"));
        assertThat(status.successSent()).isFalse();
    }

    @Test
    void aRunningMemberGrowsItsOwnSetThroughTheTemplate() {
        String set = this.template.sendSet(JobSet.builder()
                .add(Queues.MAILS.code(), SendRequest.of("grow-g", Duration.ZERO, SendOptions.id("grow-g")))
                .onSuccess(Queues.REPORT.code(), SendRequest.of("done", Duration.ZERO))
                .build());

        await().atMost(DEADLINE).until(() -> callbacksOf(set).size() == 1);
        assertThat(SetsApp.HANDLED).containsEntry("grow-g-child-1", set).containsEntry("grow-g-child-2", set);
        assertThat(this.admin.setStatus(set).orElseThrow().acknowledged()).isEqualTo(3);
    }

    @Test
    void aChainRunsItsStepsOneAfterAnother() {
        List<String> ids = this.template.sendChain(Chain.of(Queues.STEPS.code(), SendRequest.of("chain-1", Duration.ZERO))
                .then(Queues.STEPS.code(), SendRequest.of("chain-2", Duration.ZERO))
                .then(Queues.STEPS.code(), SendRequest.of("chain-3", Duration.ZERO))
                .id("chain-" + System.nanoTime()));

        assertThat(ids).hasSize(3);
        await().atMost(DEADLINE).until(() -> SetsApp.STEPS.containsAll(List.of("chain-1", "chain-2", "chain-3")));
        assertThat(SetsApp.STEPS.stream().filter(p -> p.startsWith("chain-")).toList())
                .containsExactly("chain-1", "chain-2", "chain-3");
    }

    @Test
    void badInputIsRefusedAtTheCallAndWritesNothing() {
        String id = "bad-" + System.nanoTime();
        assertThatIllegalArgumentException().isThrownBy(() -> this.template.sendSet(JobSet.builder().id(id)
                        .add("UNDECLARED", SendRequest.of("x", Duration.ZERO)).build()))
                .withMessageContaining("Unknown queue 'UNDECLARED' in a job set");
        assertThatIllegalArgumentException().isThrownBy(() -> this.template.sendSet(JobSet.builder().id(id)
                        .add(Queues.MAILS.code(), SendRequest.of("x", Duration.ZERO))
                        .onSuccess("NOPE", SendRequest.of("x", Duration.ZERO)).build()))
                .withMessageContaining("Unknown queue 'NOPE'");
        assertThatIllegalArgumentException().isThrownBy(() -> this.template.sendSet(JobSet.builder().id(id)
                        .add(Queues.MAILS.code(), SendRequest.of("x", Duration.ZERO))
                        .add(Queues.ELSEWHERE.code(), SendRequest.of("y", Duration.ZERO)).build()))
                .withMessageContaining("different key prefixes");
        assertThatIllegalArgumentException().isThrownBy(() -> this.template.sendChain(
                        Chain.of(Queues.STEPS.code(), SendRequest.of("x", Duration.ZERO))
                                .then(Queues.ELSEWHERE.code(), SendRequest.of("y", Duration.ZERO))))
                .withMessageContaining("different key prefixes");
        assertThatIllegalArgumentException().isThrownBy(() -> this.template.sendSet(null));
        assertThat(this.admin.setStatus(id)).isEmpty();

        assertThatIllegalArgumentException().isThrownBy(() -> this.template.addToSet("never-" + System.nanoTime(),
                Queues.MAILS, List.of(SendRequest.of("x", Duration.ZERO)))).withMessageContaining("no job set");
        assertThatIllegalArgumentException().isThrownBy(() -> this.template.addToSet(id, null,
                List.of(SendRequest.of("x", Duration.ZERO))));
        assertThatIllegalArgumentException().isThrownBy(() -> this.admin.setStatus("bad{id}"))
                .withMessageContaining("set id");
        assertThat(this.admin.setStatus("never-" + System.nanoTime())).isEmpty();
    }

    @Test
    void aSetSentInATransactionIsWrittenAfterItsCommitAndDroppedOnRollback() {
        AtomicReference<String> inside = new AtomicReference<>();
        String set = this.transactions.execute(tx -> {
            String id = this.template.sendSet(JobSet.builder()
                    .add(Queues.MAILS.code(), mails("tx-a-", 3))
                    .onSuccess(Queues.REPORT.code(), SendRequest.of("done", Duration.ZERO))
                    .build());
            inside.set(this.admin.setStatus(id).isPresent() ? "written" : "deferred");
            return id;
        });
        assertThat(inside).hasValue("deferred");
        assertThat(set).isNotBlank(); // generated at the call, final
        await().atMost(DEADLINE).until(() -> callbacksOf(set).size() == 1);
        assertThat(SetsApp.HANDLED).containsEntry("tx-a-0", set);

        String rolledBack = "rolled-back-" + System.nanoTime();
        this.transactions.executeWithoutResult(tx -> {
            this.template.sendSet(JobSet.builder().id(rolledBack)
                    .add(Queues.MAILS.code(), mails("tx-r-", 2)).build());
            tx.setRollbackOnly();
        });
        assertThat(this.admin.setStatus(rolledBack)).isEmpty();
    }

    @Test
    void addsAndChainsInATransactionAreCheckedAtTheCallAndGetTheirIdsThere() {
        String set = this.template.sendSet(JobSet.builder().id("tx-add-" + System.nanoTime())
                .add(Queues.MAILS.code(), SendRequest.of("tx-add-first", Duration.ofMinutes(5)))
                .build());
        List<String> added = this.transactions.execute(tx -> {
            assertThatIllegalArgumentException().isThrownBy(() -> this.template.addToSet("never-" + System.nanoTime(),
                    Queues.MAILS, List.of(SendRequest.of("x", Duration.ZERO)))).withMessageContaining("no job set");
            assertThatIllegalArgumentException().isThrownBy(() -> this.template.sendSet(JobSet.builder()
                    .add(Queues.MAILS.code(), SendRequest.of("x", Duration.ZERO)).parent("never").build()))
                    .withMessageContaining("no job set 'never'");
            List<String> ids = this.template.addToSet(set, Queues.MAILS, List.of(SendRequest.of("tx-add-2",
                    Duration.ZERO)));
            assertThat(this.admin.setStatus(set).orElseThrow().total()).isEqualTo(1);
            return ids;
        });
        assertThat(added).singleElement().isNotNull();
        await().atMost(DEADLINE).until(() -> SetsApp.HANDLED.containsKey("tx-add-2"));
        assertThat(this.admin.setStatus(set).orElseThrow().total()).isEqualTo(2);

        String chain = "tx-chain-" + System.nanoTime();
        List<String> steps = this.transactions.execute(tx -> this.template.sendChain(
                Chain.of(Queues.STEPS.code(), SendRequest.of("tx-step-1", Duration.ZERO))
                        .then(Queues.STEPS.code(), SendRequest.of("tx-step-2", Duration.ZERO,
                                SendOptions.id(chain + "-second")))
                        .id(chain)));
        assertThat(steps).containsExactly(chain + ":0", chain + "-second");
        await().atMost(DEADLINE).until(() -> SetsApp.STEPS.containsAll(List.of("tx-step-1", "tx-step-2")));
    }

    @Test
    void aCompleteSetRefusesMembersAtTheCallInATransactionToo() {
        String set = this.template.sendSet(JobSet.builder().id("closed-" + System.nanoTime())
                .add(Queues.MAILS.code(), SendRequest.of("closing", Duration.ZERO))
                .onComplete(Queues.REPORT.code(), SendRequest.of("closed", Duration.ZERO))
                .build());
        await().atMost(DEADLINE).until(() -> this.admin.setStatus(set).orElseThrow().completeSent());
        assertThatIllegalStateException().isThrownBy(() -> this.template.addToSet(set, Queues.MAILS,
                List.of(SendRequest.of("late", Duration.ZERO))));
        this.transactions.executeWithoutResult(tx -> assertThatIllegalStateException().isThrownBy(
                () -> this.template.addToSet(set, Queues.MAILS, List.of(SendRequest.of("late", Duration.ZERO)))));
    }
}
