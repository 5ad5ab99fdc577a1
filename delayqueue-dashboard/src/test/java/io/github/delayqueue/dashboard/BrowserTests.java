package io.github.delayqueue.dashboard;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where Chromium is missing, a browser test is skipped with a message, except under CI=true, where it fails. */
class BrowserTests {

    @Test
    void aMissingBrowserFailsTheBuildUnderCiAndSkipsTheTestElsewhere() {
        assertThatThrownBy(() -> Browser.requireInstalled(false, "true")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("CI=true").hasMessageContaining("apt-get install -y chromium chromium-driver");
        assertThatThrownBy(() -> Browser.requireInstalled(false, null)).isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("Browser tests skipped");
        assertThatThrownBy(() -> Browser.requireInstalled(false, "false")).isInstanceOf(TestAbortedException.class);
        assertThatCode(() -> Browser.requireInstalled(true, "true")).doesNotThrowAnyException();
        assertThatCode(() -> Browser.requireInstalled(true, null)).doesNotThrowAnyException();
    }
}
