package io.github.delayqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An HTTP client with its own session, as one browser tab: it keeps the session cookie and, once {@link #open()}ed,
 * sends Spring Security's CSRF token from the page's {@code <meta>} tags the way the page's script does.
 */
final class Http {

    private final String base;
    private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .connectTimeout(Duration.ofSeconds(10)).build();
    private String csrfHeader;
    private String csrfToken;
    private String authorization;

    Http(String base) {
        this.base = base;
    }

    /** Sends HTTP Basic credentials with every request. */
    Http basic(String user, String password) {
        this.authorization = "Basic " + java.util.Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return this;
    }

    /** Opens the page, as the browser does first, and keeps its CSRF token. */
    Http open() {
        HttpResponse<String> page = get("");
        this.csrfHeader = meta(page.body(), "dq-csrf-header");
        this.csrfToken = meta(page.body(), "dq-csrf-token");
        return this;
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(this.base + path)).GET());
    }

    HttpResponse<String> post(String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        if (this.csrfToken != null) {
            request.header(this.csrfHeader, this.csrfToken);
        }
        return send(request);
    }

    HttpResponse<String> postWithoutToken(String path, String json) {
        return send(HttpRequest.newBuilder(URI.create(this.base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        if (this.authorization != null) {
            request.header("Authorization", this.authorization);
        }
        try {
            return this.client.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String meta(String html, String name) {
        Matcher m = Pattern.compile("<meta name=\"" + Pattern.quote(name) + "\" content=\"([^\"]*)\">").matcher(html);
        return m.find() ? m.group(1) : null;
    }
}
