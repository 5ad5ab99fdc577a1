package io.github.delayqueue.spring.autoconfigure;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.ssl.SslBundle;

/**
 * Maps Boot's {@link DataRedisConnectionDetails} (from {@code spring.data.redis.*},
 * {@code @ServiceConnection}, Docker Compose or the application) onto a Redisson {@link Config}, in
 * the order Boot's own connection factories read them: sentinel, else cluster, else master/replica
 * (Redisson's replicated mode, which finds the master among the nodes), else standalone. Username,
 * password, database and SSL bundle come from the details; timeouts and client name, which connection
 * details do not carry, from {@code spring.data.redis.*} as in Boot; a cluster or Sentinel client gets the failover
 * settings of {@link RedissonConfigFactory#failover}. Loaded only when
 * spring-boot-data-redis is on the class path.
 */
final class ConnectionDetailsConfigFactory {

    private ConnectionDetailsConfigFactory() {
    }

    static Config create(DataRedisConnectionDetails details, RedisConnectionProperties properties) {
        Config config = new Config();
        config.setLazyInitialization(true);
        SslBundle sslBundle = details.getSslBundle();
        String scheme = sslBundle != null ? "rediss://" : "redis://";
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        DataRedisConnectionDetails.Cluster cluster = details.getCluster();
        DataRedisConnectionDetails.MasterReplica masterReplica = details.getMasterReplica();
        if (sentinel != null) {
            SentinelServersConfig servers = config.useSentinelServers().setDatabase(sentinel.getDatabase())
                    .setMasterName(sentinel.getMaster());
            sentinel.getNodes().forEach(node -> servers.addSentinelAddress(address(scheme, node)));
            if (sentinel.getUsername() != null) {
                servers.setSentinelUsername(sentinel.getUsername());
            }
            if (sentinel.getPassword() != null) {
                servers.setSentinelPassword(sentinel.getPassword());
            }
            RedissonConfigFactory.failover(servers);
            RedissonConfigFactory.common(servers, properties);
        } else if (cluster != null) {
            var servers = config.useClusterServers();
            cluster.getNodes().forEach(node -> servers.addNodeAddress(address(scheme, node)));
            RedissonConfigFactory.failover(servers);
            RedissonConfigFactory.common(servers, properties);
        } else if (masterReplica != null) {
            var servers = config.useReplicatedServers();
            masterReplica.getNodes().forEach(node -> servers.addNodeAddress(address(scheme, node)));
            RedissonConfigFactory.common(servers, properties);
        } else {
            DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
            if (standalone == null) {
                throw new IllegalStateException("The DataRedisConnectionDetails bean (" + details.getClass().getName()
                        + ") gives neither a standalone, sentinel, cluster nor master/replica configuration");
            }
            var server = config.useSingleServer()
                    .setAddress(address(scheme, new Node(standalone.getHost(), standalone.getPort())))
                    .setDatabase(standalone.getDatabase());
            RedissonConfigFactory.common(server, properties);
        }
        set(details.getUsername(), config::setUsername);
        set(details.getPassword(), config::setPassword);
        if (sslBundle != null) {
            RedissonConfigFactory.applySsl(config, sslBundle);
        }
        return config;
    }

    /** {@code redis://host:port}, an IPv6 host in brackets. */
    static String address(String scheme, Node node) {
        String host = node.host();
        boolean ipv6 = host.indexOf(':') >= 0 && !host.startsWith("[");
        return scheme + (ipv6 ? "[" + host + "]" : host) + ":" + node.port();
    }

    private static void set(@Nullable String value, Consumer<String> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}
