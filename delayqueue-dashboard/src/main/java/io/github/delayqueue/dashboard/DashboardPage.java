package io.github.delayqueue.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.util.ClassUtils;
import org.springframework.web.util.HtmlUtils;

/**
 * The page and its two assets, from {@code META-INF/delayqueue-dashboard/} on the class path: plain HTML, CSS and
 * JavaScript, no build step. The page gets the dashboard's base URL and, when Spring Security is present, the
 * request's CSRF token as {@code <meta>} tags, both HTML-escaped; a Content-Security-Policy allows only the
 * dashboard's own script and style.
 */
final class DashboardPage {

    private static final String ROOT = "META-INF/delayqueue-dashboard/";
    private static final boolean SECURITY = ClassUtils.isPresent("org.springframework.security.web.csrf.CsrfToken",
            DashboardPage.class.getClassLoader());
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final Map<String, MediaType> ASSETS = Map.of("dashboard.js",
            MediaType.parseMediaType("text/javascript;charset=UTF-8"), "dashboard.css",
            MediaType.parseMediaType("text/css;charset=UTF-8"));

    private final String template = read("index.html");
    private final Map<String, byte[]> assets = Map.of("dashboard.js", bytes("dashboard.js"), "dashboard.css",
            bytes("dashboard.css"));
    private final String path;

    DashboardPage(String path) {
        this.path = path;
    }

    ResponseEntity<String> page(HttpServletRequest request) {
        String base = request.getContextPath() + this.path;
        StringBuilder meta = new StringBuilder();
        meta.append("<meta name=\"dq-base\" content=\"").append(HtmlUtils.htmlEscape(base)).append("\">");
        String[] csrf = SECURITY ? SecurityCsrf.of(request) : null;
        if (csrf != null) {
            meta.append("\n    <meta name=\"dq-csrf-header\" content=\"").append(HtmlUtils.htmlEscape(csrf[0]))
                    .append("\">\n    <meta name=\"dq-csrf-token\" content=\"").append(HtmlUtils.htmlEscape(csrf[1]))
                    .append("\">");
        }
        String html = this.template.replace("{{meta}}", meta).replace("{{base}}", HtmlUtils.htmlEscape(base));
        return ResponseEntity.ok().contentType(MediaType.parseMediaType("text/html;charset=UTF-8"))
                .cacheControl(CacheControl.noStore()).header("Content-Security-Policy", POLICY)
                .header("X-Content-Type-Options", "nosniff").header("Referrer-Policy", "no-referrer").body(html);
    }

    ResponseEntity<byte[]> asset(String name) {
        byte[] body = this.assets.get(name);
        if (body == null) {
            return ResponseEntity.notFound().build();
        }
        return ResponseEntity.ok().contentType(ASSETS.get(name)).cacheControl(CacheControl.noCache())
                .header("X-Content-Type-Options", "nosniff").body(body);
    }

    private static String read(String name) {
        return new String(bytes(name), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String name) {
        try (InputStream in = DashboardPage.class.getClassLoader().getResourceAsStream(ROOT + name)) {
            if (in == null) {
                throw new IllegalStateException("missing dashboard resource " + ROOT + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read dashboard resource " + ROOT + name, e);
        }
    }
}
