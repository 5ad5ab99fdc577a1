package io.github.delayqueue.core;

/**
 * Another import holds the import lease of these queues' key prefix: {@link RDelayedQueueImporter#run()} refused to
 * start (or waited as long as {@link RDelayedQueueImporter.Builder#waitForOtherImport} allowed), reading and
 * writing nothing. Imports under one key prefix run one at a time, whichever JVM runs them, so that two runs never
 * write the same job twice. The message names the holder and how long its lease has left; a holder that died loses
 * its lease when that runs out.
 */
public class ImportInProgressException extends DelayQueueException {

    public ImportInProgressException(String message) {
        super(message, null);
    }
}
