package io.github.delayqueue.spring.autoconfigure;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/** Redis URLs as they may be shown: in exception texts and logs the password is {@code ****}. */
final class RedisUrls {

    static final String MASK = "****";

    /** {@code scheme://} then the user info, up to the last {@code @} before the path: works on text no URI parser accepts. */
    private static final Pattern USER_INFO = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@");

    private RedisUrls() {
    }

    /**
     * {@code redis://user:secret@host:6379/0} as {@code redis://user:****@host:6379/0}; a URL with only a
     * password ({@code redis://secret@host}, as Spring Boot reads it, or {@code redis://:secret@host}) as
     * {@code redis://****@host} or {@code redis://:****@host}. Text that is not a URL is masked after its
     * first {@code @} when it has one, so a password is never shown however malformed the value.
     */
    static String mask(@Nullable String url) {
        if (url == null) {
            return "null";
        }
        Matcher matcher = USER_INFO.matcher(url);
        if (matcher.find()) {
            String userInfo = matcher.group(2);
            int colon = userInfo.indexOf(':');
            String shown = colon < 0 ? MASK : userInfo.substring(0, colon + 1) + MASK;
            return matcher.group(1) + shown + "@" + url.substring(matcher.end());
        }
        int at = url.lastIndexOf('@');
        return at < 0 ? url : MASK + url.substring(at);
    }
}
