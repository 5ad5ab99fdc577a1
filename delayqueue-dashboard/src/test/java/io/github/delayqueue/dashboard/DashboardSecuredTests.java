package io.github.delayqueue.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.core.SendOptions;
import io.github.delayqueue.dashboard.app.DashApp;
import io.github.delayqueue.dashboard.app.DashQueues;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/** The security setup docs/operations/dashboard.md shows, as written there: the path needs role OPS, CSRF stays on. */
@SpringBootTest(classes = { DashApp.class, DashboardSecuredTests.Secured.class },
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = { "delayqueue.dashboard.enabled=true",
                "delayqueue.dashboard.actions-enabled=true", "spring.main.banner-mode=off" })
class DashboardSecuredTests extends DashboardContext {

    @Configuration(proxyBeanMethods = false)
    static class Secured {

        // as in docs/operations/dashboard.md, "Securing it"
        @Bean
        @Order(1)
        SecurityFilterChain delayQueueDashboard(HttpSecurity http) throws Exception {
            http.securityMatcher("/delayqueue/**")
                .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
                .httpBasic(Customizer.withDefaults());
            return http.build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(User.withUsername("ops").password("{noop}ops-secret").roles("OPS").build(),
                    User.withUsername("dev").password("{noop}dev-secret").roles("DEV").build());
        }
    }

    @Test
    void onlyTheRoleMayLookAndActionsNeedThePagesCsrfToken() {
        String base = base();
        this.template.send(DashQueues.REPORTS, Map.of("report", "r"), Duration.ofHours(1), SendOptions.id("sec-1"));

        assertThat(new Http(base).get("").statusCode()).isEqualTo(401);
        assertThat(new Http(base).get("/api/overview").statusCode()).isEqualTo(401);
        assertThat(new Http(base).basic("dev", "dev-secret").get("/api/overview").statusCode()).isEqualTo(403);

        Http ops = new Http(base).basic("ops", "ops-secret").open();
        assertThat(ops.get("/api/overview").statusCode()).isEqualTo(200);
        assertThat(ops.postWithoutToken("/api/queues/REPORTS/cancel", "{\"id\":\"sec-1\"}").statusCode()).isEqualTo(403);
        assertThat(this.admin.message(DashQueues.REPORTS, "sec-1")).isPresent();

        HttpResponse<String> cancelled = ops.post("/api/queues/REPORTS/cancel", "{\"id\":\"sec-1\"}");
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);
        assertThat(this.admin.message(DashQueues.REPORTS, "sec-1")).isEmpty();
    }
}
