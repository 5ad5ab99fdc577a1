package io.github.delayqueue.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;

/**
 * The CSRF token Spring Security put on the request, for the page's POSTs. Loaded only when Spring Security is on
 * the class path ({@link DashboardPage} checks first).
 */
final class SecurityCsrf {

    private SecurityCsrf() {
    }

    /** Header name and token, or {@code null} when the request has no token (CSRF protection off). */
    static String @Nullable [] of(HttpServletRequest request) {
        if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
            return new String[] { token.getHeaderName(), token.getToken() };
        }
        return null;
    }
}
