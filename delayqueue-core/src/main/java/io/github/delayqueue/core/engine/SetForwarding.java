package io.github.delayqueue.core.engine;

import java.util.List;

import io.github.delayqueue.core.protocol.QueueKeys;

/**
 * Where a consumer's settled members of job sets go: the client's sets ({@code io.github.delayqueue.core.sets}). A
 * settle that acknowledges or dead-letters a member writes a mark in the member's own partition
 * ({@code includes/sets.lua}), in the same script; the settler then hands the marks it wrote here, and this forwards
 * them to their sets (another hash slot on a Cluster) and deletes them. Forwarding is idempotent, so a mark forwarded
 * twice (by its settler and by a sweep) counts once.
 */
public interface SetForwarding {

    /** No sets: nothing forwarded (a client's engines always get the client's). */
    SetForwarding NONE = new SetForwarding() {
        @Override
        public void forward(QueueKeys keys, List<String> entries) {
        }

        @Override
        public void sweep(QueueKeys keys) {
        }
    };

    /**
     * Forwards the marks a settle of partition {@code keys} just wrote (as {@code SetScript.entriesOf} names them),
     * then deletes them there; never throws (a mark that could not be forwarded stays for a sweep).
     */
    void forward(QueueKeys keys, List<String> entries);

    /** Forwards the marks waiting in partition {@code keys} (the periodic pass found old ones); never throws. */
    void sweep(QueueKeys keys);
}
