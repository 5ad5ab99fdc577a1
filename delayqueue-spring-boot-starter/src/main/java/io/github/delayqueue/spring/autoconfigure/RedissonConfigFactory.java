package io.github.delayqueue.spring.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;

import io.github.delayqueue.spring.DelayQueueConfigurationException;
import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.SentinelServersConfig;

import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;

/**
 * Maps {@code spring.data.redis.*} onto a Redisson {@link Config}, the way Spring Boot maps them onto
 * Lettuce: sentinel if configured, else cluster, else a single server from {@code url} (which wins
 * over host, port, username, password and database) or host and port. SSL is the {@code rediss://}
 * scheme; {@code ssl.bundle} names the {@link SslBundle} whose key and trust managers, protocols and
 * ciphers Redisson uses. The client initializes lazily, so the application starts while Redis is down. On a cluster
 * or through Sentinel it reads the topology every {@value #TOPOLOGY_SCAN_MS} ms and retries failed commands
 * 250 ms apart, so that a queue resumes soon after a failover.
 */
final class RedissonConfigFactory {

    /**
     * How often the client the starter builds reads a cluster's or the sentinels' view of the topology (Redisson's
     * defaults: 5 s on a cluster, 1 s through Sentinel). With Redisson's defaults the first delivery of a queue whose
     * cluster master was SIGKILLed came 0.3 to 6.5 s after its replica was promoted (wherever the 5 s scan was in its
     * cycle); with these settings 0.1 to 0.3 s (FailoverTest, see docs/operations/scaling.md).
     */
    static final int TOPOLOGY_SCAN_MS = 500;

    /** Delay between Redisson's retries of a failed command (Redisson's default: 1 to 2 s with jitter). */
    static final Duration RETRY_DELAY = Duration.ofMillis(250);

    private RedissonConfigFactory() {
    }

    /** The failover settings the starter gives a cluster client: see {@link #TOPOLOGY_SCAN_MS}. */
    static void failover(ClusterServersConfig servers) {
        servers.setScanInterval(TOPOLOGY_SCAN_MS).setRetryDelay(new ConstantDelay(RETRY_DELAY));
    }

    /** The failover settings the starter gives a Sentinel client: see {@link #TOPOLOGY_SCAN_MS}. */
    static void failover(SentinelServersConfig servers) {
        servers.setScanInterval(TOPOLOGY_SCAN_MS).setRetryDelay(new ConstantDelay(RETRY_DELAY));
    }

    /** Without SSL bundles: a configured {@code spring.data.redis.ssl.bundle} fails. */
    static Config create(RedisConnectionProperties properties) {
        return create(properties, null);
    }

    static Config create(RedisConnectionProperties properties, @Nullable SslBundles sslBundles) {
        Config config = new Config();
        config.setLazyInitialization(true);
        RedisUrl url = properties.url() != null ? RedisUrl.parse(properties.url()) : null;
        boolean ssl = properties.ssl().isEnabled() || (url != null && url.ssl());
        String bundleName = properties.ssl().bundle();
        if (properties.ssl().isEnabled() && bundleName != null) {
            applySsl(config, sslBundle(bundleName, sslBundles));
        }
        String scheme = ssl ? "rediss://" : "redis://";
        RedisConnectionProperties.Sentinel sentinel = properties.sentinel();
        RedisConnectionProperties.Cluster cluster = properties.cluster();
        if (sentinel != null) {
            SentinelServersConfig servers = config.useSentinelServers().setDatabase(properties.database());
            if (sentinel.master() != null) {
                servers.setMasterName(sentinel.master());
            }
            nodes(sentinel.nodes()).forEach(node -> servers.addSentinelAddress(address(scheme, node)));
            if (sentinel.username() != null) {
                servers.setSentinelUsername(sentinel.username());
            }
            if (sentinel.password() != null) {
                servers.setSentinelPassword(sentinel.password());
            }
            failover(servers);
            common(servers, properties);
        } else if (cluster != null) {
            var servers = config.useClusterServers();
            nodes(cluster.nodes()).forEach(node -> servers.addNodeAddress(address(scheme, node)));
            failover(servers);
            common(servers, properties);
        } else {
            var server = config.useSingleServer();
            if (url != null) {
                server.setAddress(scheme + url.hostAndPort()).setDatabase(url.database());
            } else {
                server.setAddress(scheme + properties.host() + ":" + properties.port()).setDatabase(properties.database());
            }
            common(server, properties);
        }
        String username = url != null && url.password() != null ? url.username() : properties.username();
        String password = url != null && url.password() != null ? url.password() : properties.password();
        if (username != null) {
            config.setUsername(username);
        }
        if (password != null) {
            config.setPassword(password);
        }
        return config;
    }

    /** The bundle {@code spring.data.redis.ssl.bundle} names; a startup failure naming it when there is none. */
    static SslBundle sslBundle(String name, @Nullable SslBundles sslBundles) {
        if (sslBundles == null) {
            throw new DelayQueueConfigurationException("spring.data.redis.ssl.bundle names the SSL bundle '" + name
                    + "' but the application has no SSL bundles", "Define it under spring.ssl.bundle.jks." + name
                    + " or spring.ssl.bundle.pem." + name + ", or remove spring.data.redis.ssl.bundle.");
        }
        try {
            return sslBundles.getBundle(name);
        } catch (NoSuchSslBundleException e) {
            throw new DelayQueueConfigurationException("spring.data.redis.ssl.bundle names the SSL bundle '" + name
                    + "', which is not configured (configured: " + sslBundles.getBundleNames() + ")",
                    "Define it under spring.ssl.bundle.jks." + name + " or spring.ssl.bundle.pem." + name
                    + ", or name one of the configured bundles.", e);
        }
    }

    /** Redisson takes the bundle's managers, and its protocols and ciphers when the bundle sets them. */
    static void applySsl(Config config, SslBundle bundle) {
        config.setSslKeyManagerFactory(bundle.getManagers().getKeyManagerFactory());
        config.setSslTrustManagerFactory(bundle.getManagers().getTrustManagerFactory());
        SslOptions options = bundle.getOptions();
        if (options.getEnabledProtocols() != null) {
            config.setSslProtocols(options.getEnabledProtocols());
        }
        if (options.getCiphers() != null) {
            config.setSslCiphers(options.getCiphers());
        }
    }

    static void common(BaseConfig<?> servers, RedisConnectionProperties properties) {
        if (properties.timeout() != null) {
            servers.setTimeout(millis(properties.timeout(), "timeout"));
        }
        if (properties.connectTimeout() != null) {
            servers.setConnectTimeout(millis(properties.connectTimeout(), "connect-timeout"));
        }
        if (properties.clientName() != null) {
            servers.setClientName(properties.clientName());
        }
    }

    private static List<String> nodes(@Nullable List<String> nodes) {
        return nodes == null ? List.of() : nodes;
    }

    /** Boot's nodes are {@code host:port}; Redisson wants a scheme. */
    static String address(String scheme, String node) {
        String trimmed = node.trim();
        return trimmed.contains("://") ? trimmed : scheme + trimmed;
    }

    private static int millis(Duration duration, String name) {
        long millis = duration.toMillis();
        if (millis < 0 || millis > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("spring.data.redis." + name + " is out of range: " + duration);
        }
        return (int) millis;
    }

    /** The parts of {@code redis://[[user]:password@]host[:port][/database]}, read as Boot reads them. */
    record RedisUrl(boolean ssl, String hostAndPort, @Nullable String username, @Nullable String password,
            int database) {

        /** Every message shows the URL with its password masked; the parser's own exception (which quotes it) is not chained. */
        static RedisUrl parse(String url) {
            URI uri;
            try {
                uri = new URI(url);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("spring.data.redis.url is not a valid URL (" + e.getReason()
                        + " at index " + e.getIndex() + "): " + RedisUrls.mask(url));
            }
            String scheme = uri.getScheme();
            if (!"redis".equals(scheme) && !"rediss".equals(scheme) || uri.getHost() == null) {
                throw new IllegalArgumentException("spring.data.redis.url must look like redis://host:port or "
                        + "rediss://host:port, was " + RedisUrls.mask(url));
            }
            String username = null;
            String password = null;
            String userInfo = uri.getUserInfo();
            if (userInfo != null) {
                int colon = userInfo.indexOf(':');
                if (colon >= 0) {
                    username = colon == 0 ? null : userInfo.substring(0, colon);
                    password = userInfo.substring(colon + 1);
                } else {
                    password = userInfo;
                }
            }
            String path = uri.getPath();
            int database = 0;
            if (path != null && path.length() > 1) {
                try {
                    database = Integer.parseInt(path.substring(1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("spring.data.redis.url has an invalid database '"
                            + path.substring(1) + "': " + RedisUrls.mask(url));
                }
            }
            int port = uri.getPort() == -1 ? 6379 : uri.getPort();
            return new RedisUrl("rediss".equals(scheme), uri.getHost() + ":" + port, username, password, database);
        }
    }
}
