package io.github.delayqueue.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Issue 32: an application's test class path holds {@code spring-boot-starter-test} (whose JSONassert brings
 * {@code android-json}) and {@code delayqueue-test}; this module's tests have both, as the application's have.
 * {@code delayqueue-test} must not add a second {@code org.json.JSONObject} (jedis's {@code org.json:json}, through
 * embedded-redis), or Spring Boot's test support warns "Found multiple occurrences of org.json.JSONObject" in
 * every test context.
 */
class ClassPathTests {

    @Test
    void oneOrgJsonJsonObjectOnTheTestClassPath() throws IOException {
        List<URL> found = Collections.list(getClass().getClassLoader().getResources("org/json/JSONObject.class"));
        assertThat(found).as("org.json.JSONObject on the class path").hasSize(1);
        assertThat(found.get(0).toString()).contains("android-json");
    }
}
