package io.github.delayqueue.test;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Which key prefixes {@link DelayQueueTester#reset()} may delete under: only what the test context owns. That is
 * the prefix it generated ({@link KeyPrefixCleanup}), any prefix on the embedded Redis it started (which holds
 * nothing but tests' data), or any prefix once the test opts in with {@value #OPT_IN}{@code =true}, saying that the
 * Redis it uses holds test data only.
 */
record ResetScope(@Nullable String generatedPrefix, boolean embeddedRedis, boolean optedIn) {

    /** The property by which a test lets {@code reset()} delete under a prefix it did not generate. */
    static final String OPT_IN = "delayqueue.test.reset-configured-prefix";

    boolean owns(String prefix) {
        return this.optedIn || this.embeddedRedis || prefix.equals(this.generatedPrefix);
    }

    /** Why reset() refuses: the queues whose prefix the context does not own ({@code QUEUE (prefix 'p')}). */
    String refusal(List<String> foreign) {
        return "DelayQueueTester.reset() deleted nothing: it deletes only what this test context owns, and "
                + String.join(", ", foreign) + (foreign.size() == 1 ? " uses a key prefix" : " use key prefixes")
                + " set by the configuration (delayqueue.key-prefix or delayqueue.queues.<code>.key-prefix, in the "
                + "application's or the test's properties) on a Redis this test did not start, where "
                + (foreign.size() == 1 ? "it" : "they") + " may hold an application's real messages and dead "
                + "letters. Either let the test context use a prefix of its own (leave delayqueue.key-prefix unset "
                + "for tests, for example in a profile the tests do not activate: each test context then gets a "
                + "random one, deleted when it closes), or, if this Redis holds test data only, opt in with the "
                + "test property " + OPT_IN + "=true";
    }
}
