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

    /** The fields of an opening text this release knows how to split: {@code set1}, then six header fields. */
    private static final String OPENING_VERSION = "set1";
    private static final int HEADER_FIELDS = 7;
    private static final char RS = '\u001e';

    /** {@code "dq-set":"}, as the headers of a member's body carry it (a value's quote is escaped, never this). */
    private static final String SET_AT = "\"" + JobSet.SET_HEADER + "\":\"";

    private OutboxSets() {
    }

    /**
     * A set's opening text as one or more texts of at most about {@code maxChars} each (at least one member each),
     * each an opening of the same set with a share of its members: {@code openSet} of each creates the set if it is
     * absent (the same creation every time) and registers its share, so they may be applied in any order and again.
     * A text in a format this release does not know is kept whole.
     * <p>
     * This reads the core's opening format (a version, six header fields, then the members, separated by U+001E);
     * it belongs in the core ({@code PreparedSet}), which owns that format.
     */
    static List<String> split(String opening, int maxChars) {
        if (opening.length() <= maxChars) {
            return List.of(opening);
        }
        String[] fields = opening.split(String.valueOf(RS), -1);
        if (fields.length <= HEADER_FIELDS || !OPENING_VERSION.equals(fields[0])) {
            return List.of(opening);
        }
        StringBuilder header = new StringBuilder();
        for (int i = 0; i < HEADER_FIELDS; i++) {
            header.append(i == 0 ? "" : String.valueOf(RS)).append(fields[i]);
        }
        List<String> texts = new ArrayList<>();
        StringBuilder text = new StringBuilder(header);
        int members = 0;
        for (int i = HEADER_FIELDS; i < fields.length; i++) {
            if (members > 0 && text.length() + 1 + fields[i].length() > maxChars) {
                texts.add(text.toString());
                text = new StringBuilder(header);
                members = 0;
            }
            text.append(RS).append(fields[i]);
            members++;
        }
        texts.add(text.toString());
        return texts;
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
