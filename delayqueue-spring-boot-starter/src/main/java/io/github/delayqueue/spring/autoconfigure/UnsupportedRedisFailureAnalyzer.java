package io.github.delayqueue.spring.autoconfigure;

import io.github.delayqueue.core.UnsupportedRedisException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a Redis older than 6.2 (met by a send or read at startup) with the version and what to do. */
final class UnsupportedRedisFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedRedisException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedRedisException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Point spring.data.redis.url (or delayqueue's RedissonClient) at Redis 6.2 or newer.", cause);
    }
}
