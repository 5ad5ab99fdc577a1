package io.github.delayqueue.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A small order service: unpaid orders are cancelled by a delayed message, meeting attendees are
 * reminded before the start. Run it with {@code ./mvnw -pl sample-app -am spring-boot:run}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
