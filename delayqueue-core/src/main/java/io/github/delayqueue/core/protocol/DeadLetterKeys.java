package io.github.delayqueue.core.protocol;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.internal.Checks;

/**
 * Dead-letter keys as stored and as shown. Stored, a key is {@code "\u001f<seq8><id>"}: the control
 * character tells it from the bare id that releases before 2026-11-24 used (an id never holds one).
 * Shown ({@link DeadLetter#key()}), it is {@code "<seq8>:<id>"}, or {@code ":<id>"} for such an older
 * dead letter: printable, and unambiguous because {@code <seq8>} is eight characters without a colon.
 */
public final class DeadLetterKeys {

    private static final char MARK = '\u001f';
    private static final int SEQ = 8;

    private DeadLetterKeys() {
    }

    /** The shown form of a stored key. */
    static String shown(String stored) {
        if (!stored.isEmpty() && stored.charAt(0) == MARK && stored.length() > SEQ + 1) {
            return stored.substring(1, SEQ + 1) + ':' + stored.substring(SEQ + 1);
        }
        return ':' + stored;
    }

    /** The message id of a stored key. */
    public static String id(String stored) {
        if (!stored.isEmpty() && stored.charAt(0) == MARK && stored.length() > SEQ + 1) {
            return stored.substring(SEQ + 1);
        }
        return stored;
    }

    /**
     * The stored form of a shown key.
     *
     * @throws IllegalArgumentException if {@code shown} is not of either shown form
     */
    public static String stored(String shown) {
        Checks.require(shown != null, "dead-letter key must not be null");
        if (shown.length() > 1 && shown.charAt(0) == ':') {
            return shown.substring(1);
        }
        if (shown.length() > SEQ + 1 && shown.charAt(SEQ) == ':' && isSeq(shown)) {
            return MARK + shown.substring(0, SEQ) + shown.substring(SEQ + 1);
        }
        throw new IllegalArgumentException("not a dead-letter key: '" + shown
                + "' (use DeadLetter.key() of a dead letter listed by deadLetters: \"<seq8>:<id>\", or \":<id>\")");
    }

    private static boolean isSeq(String shown) {
        for (int i = 0; i < SEQ; i++) {
            char c = shown.charAt(i);
            boolean digit = c == '-' || c == '_' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
            if (!digit) {
                return false;
            }
        }
        return true;
    }
}
