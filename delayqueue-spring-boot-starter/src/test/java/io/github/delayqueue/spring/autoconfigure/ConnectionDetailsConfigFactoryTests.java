package io.github.delayqueue.spring.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReplicatedServersConfig;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The mapping of Boot's {@link DataRedisConnectionDetails} onto Redisson's {@link Config}; no Redis needed. */
class ConnectionDetailsConfigFactoryTests {

    private static final RedisConnectionProperties PROPERTIES = RedisConnectionProperties.bind(new MockEnvironment()
            .withProperty("spring.data.redis.host", "ignored").withProperty("spring.data.redis.password", "ignored")
            .withProperty("spring.data.redis.timeout", "2s").withProperty("spring.data.redis.client-name", "orders"));

    @Test
    void mapsStandaloneCredentialsAndDatabaseFromTheDetailsAndTimeoutsFromProperties() {
        Config config = ConnectionDetailsConfigFactory.create(new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of("cache.example", 6380, 4);
            }

            @Override
            public String getUsername() {
                return "app";
            }

            @Override
            public String getPassword() {
                return "details-pw";
            }
        }, PROPERTIES);
        SingleServerConfig server = (SingleServerConfig) ReflectionTestUtils.invokeMethod(config, "getSingleServerConfig");
        assertThat(server.getAddress()).isEqualTo("redis://cache.example:6380");
        assertThat(server.getDatabase()).isEqualTo(4);
        assertThat(server.getTimeout()).isEqualTo(2000);
        assertThat(server.getClientName()).isEqualTo("orders");
        assertThat(config.getUsername()).isEqualTo("app");
        assertThat(config.getPassword()).isEqualTo("details-pw");
        assertThat(config.isLazyInitialization()).isTrue();
        assertThat(config.getSslTrustManagerFactory()).isNull();
    }

    @Test
    void sentinelWinsAndTakesItsOwnDatabaseAndCredentials() {
        Config config = ConnectionDetailsConfigFactory.create(new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of("ignored", 1);
            }

            @Override
            public Sentinel getSentinel() {
                return new Sentinel() {
                    @Override
                    public int getDatabase() {
                        return 2;
                    }

                    @Override
                    public String getMaster() {
                        return "mymaster";
                    }

                    @Override
                    public List<Node> getNodes() {
                        return List.of(new Node("s1", 26379), new Node("::1", 26380));
                    }

                    @Override
                    public String getUsername() {
                        return "sentinel-user";
                    }

                    @Override
                    public String getPassword() {
                        return "sentinel-pw";
                    }
                };
            }
        }, PROPERTIES);
        SentinelServersConfig sentinel = (SentinelServersConfig) ReflectionTestUtils.invokeMethod(config,
                "getSentinelServersConfig");
        assertThat(sentinel.getMasterName()).isEqualTo("mymaster");
        assertThat(sentinel.getSentinelAddresses()).containsExactly("redis://s1:26379", "redis://[::1]:26380");
        assertThat(sentinel.getSentinelUsername()).isEqualTo("sentinel-user");
        assertThat(sentinel.getSentinelPassword()).isEqualTo("sentinel-pw");
        assertThat(sentinel.getDatabase()).isEqualTo(2);
        assertThat(sentinel.getScanInterval()).isEqualTo(RedissonConfigFactory.TOPOLOGY_SCAN_MS);
        assertThat(sentinel.getRetryDelay().calcDelay(3)).isEqualTo(RedissonConfigFactory.RETRY_DELAY);
        assertThat(config.getPassword()).isNull();
    }

    @Test
    void mapsClusterWithTheSslBundle() throws Exception {
        SslBundle bundle = RedissonConfigFactoryTests.sslBundle();
        Config config = ConnectionDetailsConfigFactory.create(new DataRedisConnectionDetails() {
            @Override
            public Cluster getCluster() {
                return () -> List.of(new Node("n1", 7000), new Node("n2", 7001));
            }

            @Override
            public SslBundle getSslBundle() {
                return bundle;
            }
        }, PROPERTIES);
        ClusterServersConfig cluster = (ClusterServersConfig) ReflectionTestUtils.invokeMethod(config,
                "getClusterServersConfig");
        assertThat(cluster.getNodeAddresses()).containsExactly("rediss://n1:7000", "rediss://n2:7001");
        assertThat(cluster.getScanInterval()).isEqualTo(RedissonConfigFactory.TOPOLOGY_SCAN_MS);
        assertThat(cluster.getRetryDelay().calcDelay(3)).isEqualTo(RedissonConfigFactory.RETRY_DELAY);
        assertThat(config.getSslKeyManagerFactory()).isSameAs(bundle.getManagers().getKeyManagerFactory());
        assertThat(config.getSslTrustManagerFactory()).isSameAs(bundle.getManagers().getTrustManagerFactory());
        assertThat(config.getSslProtocols()).containsExactly("TLSv1.3");
    }

    @Test
    void mapsMasterReplicaToReplicatedServers() {
        Config config = ConnectionDetailsConfigFactory.create(new DataRedisConnectionDetails() {
            @Override
            public MasterReplica getMasterReplica() {
                return () -> List.of(new Node("r1", 6379), new Node("r2", 6379));
            }
        }, PROPERTIES);
        ReplicatedServersConfig replicated = (ReplicatedServersConfig) ReflectionTestUtils.invokeMethod(config,
                "getReplicatedServersConfig");
        assertThat(replicated.getNodeAddresses()).containsExactly("redis://r1:6379", "redis://r2:6379");
    }

    @Test
    void detailsWithoutAnyServerFail() {
        assertThatIllegalStateException()
                .isThrownBy(() -> ConnectionDetailsConfigFactory.create(new DataRedisConnectionDetails() {
                }, PROPERTIES)).withMessageContaining("DataRedisConnectionDetails");
    }
}
