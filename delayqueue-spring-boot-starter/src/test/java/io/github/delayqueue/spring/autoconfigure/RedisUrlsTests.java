package io.github.delayqueue.spring.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** What a Redis URL looks like in an exception text or a log line. */
class RedisUrlsTests {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "redis://app:s3cret@cache:6379/2 | redis://app:****@cache:6379/2",
            "rediss://:s3cret@cache:6380 | rediss://:****@cache:6380",
            "redis://s3cret@cache | redis://****@cache",
            "redis://cache:6379 | redis://cache:6379",
            "redis://app:p@ss@word@cache:6379 | redis://app:****@cache:6379",
            "redis://app:s3 cret@cache host:6379 | redis://app:****@cache host:6379",
            "app:s3cret@cache:6379 | ****@cache:6379",
            "not a url | not a url" })
    void masksThePasswordHoweverTheValueLooks(String url, String shown) {
        assertThat(RedisUrls.mask(url)).isEqualTo(shown);
        assertThat(RedisUrls.mask(url)).doesNotContain("s3cret").doesNotContain("word");
    }
}
