package io.github.delayqueue.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rotation of the watch's turns ({@link Watch#owner}, {@link Watch#periodicOwner}): every instance of a queue's
 * consumers gets its share of the turns, the periodic turns included whatever the number of instances (a number that
 * divides {@link Watch#PERIODIC_TURNS} too: an instance without flow limits must get its periodic turn to take stale
 * limits out of the flow view, and one with limits to put them back).
 */
class WatchTurnsTest {

    @ParameterizedTest(name = "{0} instances")
    @ValueSource(ints = {1, 2, 3, 5, 7, 10, 30})
    void everyInstanceOwnsItsShareOfTheTurnsAndOfThePeriodicTurns(int count) {
        List<String> instances = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            instances.add("instance-" + i);
        }
        for (String queue : List.of("dq:{orders}:delayed", "dq:{a}:delayed", "dq:{orders#3}:delayed")) {
            Map<String, Integer> turns = new HashMap<>();
            long first = 1_764_000_000_000L / 250; // turns of 250 ms on a Redis clock of these days
            for (long turn = first; turn < first + (long) count * Watch.PERIODIC_TURNS * 4; turn++) {
                turns.merge(Watch.owner(instances, queue, turn), 1, Integer::sum);
            }
            assertThat(turns).as("turns of %s", queue).hasSize(count)
                    .allSatisfy((instance, owned) -> assertThat(owned).isEqualTo(Watch.PERIODIC_TURNS * 4));
            // the duties: the periodic pass, and reading the leases every visibilityTimeout / 2 (2 turns: 1 s leases
            // polled every 250 ms)
            for (long every : new long[] { Watch.PERIODIC_TURNS, 2, 5 }) {
                Map<String, Integer> duty = new HashMap<>();
                int dutyTurns = 0;
                for (long turn = first; turn < first + count * every * 4; turn++) {
                    String owner = Watch.dutyOwner(instances, queue, turn, every);
                    if (owner != null) {
                        dutyTurns++;
                        duty.merge(owner, 1, Integer::sum);
                    }
                    assertThat(Watch.periodicOwner(instances, queue, turn))
                            .isEqualTo(Watch.dutyOwner(instances, queue, turn, Watch.PERIODIC_TURNS));
                }
                assertThat(dutyTurns).isEqualTo(count * 4);
                assertThat(duty).as("turns of %s's duty every %d turns", queue, every).hasSize(count)
                        .allSatisfy((instance, owned) -> assertThat(owned).isEqualTo(4));
            }
        }
    }

    @ParameterizedTest(name = "{0} instances")
    @ValueSource(ints = {2, 4, 10})
    void consecutiveTurnsOfAQueueGoToDifferentInstancesAndQueuesStartAtDifferentOnes(int count) {
        List<String> instances = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            instances.add("instance-" + i);
        }
        long turn = 7_056_000_000L;
        for (int i = 0; i < 100; i++) {
            assertThat(Watch.owner(instances, "dq:{q" + i + "}:delayed", turn + i))
                    .isNotEqualTo(Watch.owner(instances, "dq:{q" + i + "}:delayed", turn + i + 1));
        }
        // 100 queues' owners of one turn: spread, not all on one instance
        Map<String, Integer> perInstance = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            perInstance.merge(Watch.owner(instances, "dq:{q" + i + "}:delayed", turn), 1, Integer::sum);
        }
        assertThat(perInstance).hasSize(count);
    }
}
