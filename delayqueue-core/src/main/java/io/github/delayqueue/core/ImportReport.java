package io.github.delayqueue.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one run of {@link RDelayedQueueImporter#run()} did (or, in a dry run, found).
 *
 * @param source             the Redisson queue's name
 * @param target             the delayqueue queue
 * @param dryRun             whether this run only read and counted
 * @param found              entries read from Redisson's structures
 * @param readyInDestination of those, values Redisson had already transferred to its destination queue (due,
 *                           waiting for {@code take()}); they are imported due at once
 * @param dueAlready         of {@code found}, entries whose due time had passed by the Redis clock when read
 * @param imported           messages written to the target queue by this run (0 in a dry run)
 * @param alreadyImported    entries an earlier, interrupted run had written already (or whose id was live in
 *                           the target queue): not written again, only removed from Redisson
 * @param removed            entries removed from Redisson's structures by this run (0 in a dry run)
 * @param failed             entries that could not be imported (or, in a dry run, would not be); they stay in
 *                           Redisson's structures
 * @param failures           the first 100 failures with their
 *                           reasons
 * @param remaining          entries left in Redisson's structures when the run ended (the failed ones included)
 */
public record ImportReport(String source, String target, boolean dryRun, long found, long readyInDestination,
        long dueAlready, long imported, long alreadyImported, long removed, long failed, List<Failure> failures,
        long remaining) {

    /**
     * One entry that could not be imported.
     *
     * @param entry  the id the message would have had in the target queue, or {@code destination[i]} for a value
     *               read from Redisson's destination queue in a dry run
     * @param dueAt  its due time in Redisson, if known
     * @param reason why it was not imported
     */
    public record Failure(String entry, @Nullable Instant dueAt, String reason) {
    }

    public ImportReport {
        failures = List.copyOf(failures);
    }

    /**
     * Whether everything was imported and nothing is left in Redisson's structures; for a dry run, whether
     * every entry found could be imported.
     */
    public boolean complete() {
        return failed == 0 && (dryRun || remaining == 0);
    }
}
