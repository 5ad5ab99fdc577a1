package io.github.delayqueue.core.internal;

import org.jspecify.annotations.Nullable;

import io.github.delayqueue.core.DelayQueueClient;
import io.github.delayqueue.core.protocol.QueueRoute;
import io.github.delayqueue.core.protocol.Scripts;

/**
 * Not API. What a {@link DelayQueueClient} lends to the library's own feature packages (recurring schedules): its
 * queue routes and scripts, which are not part of its public surface. {@code DelayQueueClient} registers the
 * {@link Lender} in its static initializer (the JDK's {@code SharedSecrets} pattern), so nothing public about it
 * appears in the API package.
 */
public final class ClientAccess {

    /** The client's side: implemented once, inside {@link DelayQueueClient}. */
    public interface Lender {

        /** The client's route of {@code queue}, validating its name. */
        QueueRoute route(DelayQueueClient client, String queue);

        Scripts scripts(DelayQueueClient client);
    }

    private static volatile @Nullable Lender lender;

    private ClientAccess() {
    }

    /** Called once, by {@link DelayQueueClient}'s static initializer. */
    public static void lend(Lender value) {
        Checks.require(lender == null, "the client's lender is registered already");
        lender = value;
    }

    /** The route of {@code queue} on {@code client}; see {@link QueueRoute}. */
    public static QueueRoute route(DelayQueueClient client, String queue) {
        return lender(client).route(client, queue);
    }

    public static Scripts scripts(DelayQueueClient client) {
        return lender(client).scripts(client);
    }

    private static Lender lender(DelayQueueClient client) {
        Lender value = lender; // set before any client exists: a client's class is initialized before its creation
        Checks.require(value != null && client != null, "no client");
        return value;
    }
}
