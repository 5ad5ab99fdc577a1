package io.github.delayqueue.spring.outbox;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.sets.JobSet;
import org.jspecify.annotations.Nullable;

/**
 * The rows of a job set in the outbox table, besides its members' ordinary send rows: {@link #OPEN} (message_id the
 * set's id, body a share of the set's opening text, no delay nor due time) and {@link #SEAL} (message_id the set's id,
 * an empty body). Both fit the {@code send_mode} column as it is: no schema change.
 */
final class OutboxSets {

    /** A row that creates a set (if absent) and registers some of its members as pending. */
    static final String OPEN = "SET_OPEN";

    /** A row that seals a set: its callbacks may fire from then on, once its members have settled. */
    static final String SEAL = "SET_SEAL";

    /**
     * The longest opening text one row holds, in characters (members are added to Redis in batches of their own
     * whatever the row's size): a set of 100,000 members with 40-character ids takes about five rows, each well under
     * MariaDB's default {@code max_allowed_packet} (16 MB).
     */
    static final int OPENING_ROW_CHARS = 1 << 20;

    /** {@code "dq-set":"}, as the headers of a member's body carry it (a value's quote is escaped, never this). */
    private static final String SET_AT = "\"" + JobSet.SET_HEADER + "\":\"";

    private OutboxSets() {
    }

    /**
     * The job set a send row's body (a {@code PreparedSend.Message} body: {@code <length>:<headers JSON><payload>})
     * names in its {@link JobSet#SET_HEADER} header, or null.
     */
    static @Nullable String setOf(String body) {
        int colon = body.indexOf(':');
        if (colon <= 0 || colon > 10) {
            return null;
        }
        int end;
        try {
            end = Math.min(body.length(), colon + 1 + Integer.parseInt(body, 0, colon, 10));
        } catch (NumberFormatException e) {
            return null;
        }
        int at = body.indexOf(SET_AT, colon);
        if (at < 0 || at >= end) {
            return null;
        }
        int from = at + SET_AT.length();
        int to = body.indexOf('"', from);
        return to <= from || to > end ? null : body.substring(from, to);
    }
}
