package io.github.delayqueue.spring.autoconfigure;

import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

import io.github.delayqueue.spring.DelayQueueConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/** The mapping of {@code spring.data.redis.*} onto Redisson's {@link Config}; no Redis needed. */
class RedissonConfigFactoryTests {

    @Test
    void defaultsToLocalhost() {
        Config config = create(Map.of());
        SingleServerConfig server = single(config);
        assertThat(server.getAddress()).isEqualTo("redis://localhost:6379");
        assertThat(server.getDatabase()).isZero();
        assertThat(config.getUsername()).isNull();
        assertThat(config.getPassword()).isNull();
        assertThat(config.isLazyInitialization()).isTrue();
    }

    @Test
    void mapsHostPortDatabaseCredentialsTimeoutsAndClientName() {
        Config config = create(Map.of("spring.data.redis.host", "redis.example", "spring.data.redis.port", "6380",
                "spring.data.redis.database", "3", "spring.data.redis.username", "app",
                "spring.data.redis.password", "secret", "spring.data.redis.timeout", "2s",
                "spring.data.redis.connect-timeout", "500ms", "spring.data.redis.client-name", "orders"));
        SingleServerConfig server = single(config);
        assertThat(server.getAddress()).isEqualTo("redis://redis.example:6380");
        assertThat(server.getDatabase()).isEqualTo(3);
        assertThat(server.getTimeout()).isEqualTo(2000);
        assertThat(server.getConnectTimeout()).isEqualTo(500);
        assertThat(server.getClientName()).isEqualTo("orders");
        assertThat(config.getUsername()).isEqualTo("app");
        assertThat(config.getPassword()).isEqualTo("secret");
    }

    @Test
    void sslEnabledUsesTheRedissScheme() {
        assertThat(single(create(Map.of("spring.data.redis.ssl.enabled", "true"))).getAddress())
                .isEqualTo("rediss://localhost:6379");
    }

    @Test
    void urlWinsOverHostPortCredentialsAndDatabase() {
        Config config = create(Map.of("spring.data.redis.url", "rediss://user:pw@cache.example:7000/5",
                "spring.data.redis.host", "ignored", "spring.data.redis.port", "1", "spring.data.redis.database", "9",
                "spring.data.redis.username", "ignored", "spring.data.redis.password", "ignored"));
        SingleServerConfig server = single(config);
        assertThat(server.getAddress()).isEqualTo("rediss://cache.example:7000");
        assertThat(server.getDatabase()).isEqualTo(5);
        assertThat(config.getUsername()).isEqualTo("user");
        assertThat(config.getPassword()).isEqualTo("pw");
    }

    @Test
    void urlWithPasswordOnlyAndDefaultPort() {
        Config config = create(Map.of("spring.data.redis.url", "redis://:pw@cache.example"));
        assertThat(single(config).getAddress()).isEqualTo("redis://cache.example:6379");
        assertThat(config.getUsername()).isNull();
        assertThat(config.getPassword()).isEqualTo("pw");
        assertThat(create(Map.of("spring.data.redis.url", "redis://pw@cache.example")).getPassword()).isEqualTo("pw");
    }

    @Test
    void rejectsUrlWithOtherScheme() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> create(Map.of("spring.data.redis.url", "http://cache.example:6379")))
                .withMessageContaining("spring.data.redis.url");
    }

    @Test
    void mapsSentinel() {
        Config config = create(Map.of("spring.data.redis.sentinel.master", "mymaster",
                "spring.data.redis.sentinel.nodes", "s1:26379, s2:26379,redis://s3:26379",
                "spring.data.redis.sentinel.username", "sentinel-user",
                "spring.data.redis.sentinel.password", "sentinel-pw", "spring.data.redis.password", "data-pw",
                "spring.data.redis.database", "2", "spring.data.redis.timeout", "1s"));
        assertThat(config.isSentinelConfig()).isTrue();
        SentinelServersConfig sentinel = (SentinelServersConfig) ReflectionTestUtils.invokeMethod(config,
                "getSentinelServersConfig");
        assertThat(sentinel.getMasterName()).isEqualTo("mymaster");
        assertThat(sentinel.getSentinelAddresses()).containsExactly("redis://s1:26379", "redis://s2:26379",
                "redis://s3:26379");
        assertThat(sentinel.getSentinelUsername()).isEqualTo("sentinel-user");
        assertThat(sentinel.getSentinelPassword()).isEqualTo("sentinel-pw");
        assertThat(sentinel.getDatabase()).isEqualTo(2);
        assertThat(sentinel.getScanInterval()).isEqualTo(500);
        assertThat(sentinel.getRetryDelay().calcDelay(3)).isEqualTo(Duration.ofMillis(250));
        assertThat(sentinel.getTimeout()).isEqualTo(1000);
        assertThat(config.getPassword()).isEqualTo("data-pw");
    }

    @Test
    void mapsCluster() {
        Config config = create(Map.of("spring.data.redis.cluster.nodes", "n1:7000,n2:7001",
                "spring.data.redis.ssl.enabled", "true", "spring.data.redis.password", "pw"));
        assertThat(config.isClusterConfig()).isTrue();
        ClusterServersConfig cluster = (ClusterServersConfig) ReflectionTestUtils.invokeMethod(config,
                "getClusterServersConfig");
        assertThat(cluster.getNodeAddresses()).containsExactly("rediss://n1:7000", "rediss://n2:7001");
        assertThat(config.getPassword()).isEqualTo("pw");
        // a failover is noticed within half a second (Redisson's defaults: 5 s scan, retries 1-2 s apart)
        assertThat(cluster.getScanInterval()).isEqualTo(500);
        assertThat(cluster.getRetryDelay().calcDelay(3)).isEqualTo(Duration.ofMillis(250));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "redis://app:s3cret-pw@cache host:6379", "http://app:s3cret-pw@cache:6379",
            "redis://app:s3cret-pw@cache:6379/db", "redis://:s3cret-pw@cache:6379/db", "redis://s3cret-pw@cache:6379/db",
            "redis://app:s3cret-pw@[bad:6379" })
    void aBadUrlIsReportedWithItsPasswordMasked(String url) {
        Throwable failure = catchThrowable(() -> create(Map.of("spring.data.redis.url", url)));
        assertThat(failure).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spring.data.redis.url")
                .hasMessageContaining(RedisUrls.MASK);
        for (Throwable t = failure; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage())).doesNotContain("s3cret-pw");
        }
    }

    @Test
    void appliesTheNamedSslBundle() throws Exception {
        SslBundle bundle = sslBundle();
        Config config = RedissonConfigFactory.create(properties(Map.of("spring.data.redis.ssl.bundle", "redis")),
                new DefaultSslBundleRegistry("redis", bundle));
        assertThat(single(config).getAddress()).isEqualTo("rediss://localhost:6379");
        assertThat(config.getSslKeyManagerFactory()).isSameAs(bundle.getManagers().getKeyManagerFactory());
        assertThat(config.getSslTrustManagerFactory()).isSameAs(bundle.getManagers().getTrustManagerFactory());
        assertThat(config.getSslProtocols()).containsExactly("TLSv1.3");
        assertThat(config.getSslCiphers()).containsExactly("TLS_AES_128_GCM_SHA256");
    }

    @Test
    void aBundleWithSslDisabledIsNotApplied() throws Exception {
        Config config = RedissonConfigFactory.create(properties(Map.of("spring.data.redis.ssl.bundle", "redis",
                "spring.data.redis.ssl.enabled", "false")), new DefaultSslBundleRegistry("redis", sslBundle()));
        assertThat(single(config).getAddress()).isEqualTo("redis://localhost:6379");
        assertThat(config.getSslTrustManagerFactory()).isNull();
    }

    @Test
    void anUnknownSslBundleFailsNamingIt() throws Exception {
        RedisConnectionProperties properties = properties(Map.of("spring.data.redis.ssl.bundle", "missing"));
        assertThatExceptionOfType(DelayQueueConfigurationException.class)
                .isThrownBy(() -> RedissonConfigFactory.create(properties, new DefaultSslBundleRegistry("redis", sslBundle())))
                .withMessageContaining("spring.data.redis.ssl.bundle").withMessageContaining("'missing'")
                .withMessageContaining("[redis]");
        assertThatExceptionOfType(DelayQueueConfigurationException.class)
                .isThrownBy(() -> RedissonConfigFactory.create(properties, null))
                .withMessageContaining("'missing'").withMessageContaining("no SSL bundles")
                .satisfies(e -> assertThat(e.action()).contains("spring.ssl.bundle.pem.missing"));
    }

    /** A bundle of default managers with its own protocols and ciphers. */
    static SslBundle sslBundle() throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(null, null);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init((KeyStore) null);
        return SslBundle.of(null, null, SslOptions.of(new String[] { "TLS_AES_128_GCM_SHA256" },
                new String[] { "TLSv1.3" }), "TLS", SslManagerBundle.of(keys, trust));
    }

    private static SingleServerConfig single(Config config) {
        assertThat(config.isSingleConfig()).isTrue();
        return (SingleServerConfig) ReflectionTestUtils.invokeMethod(config, "getSingleServerConfig");
    }

    private static Config create(Map<String, String> properties) {
        return RedissonConfigFactory.create(properties(properties));
    }

    private static RedisConnectionProperties properties(Map<String, String> properties) {
        MockEnvironment environment = new MockEnvironment();
        properties.forEach(environment::setProperty);
        return RedisConnectionProperties.bind(environment);
    }
}
