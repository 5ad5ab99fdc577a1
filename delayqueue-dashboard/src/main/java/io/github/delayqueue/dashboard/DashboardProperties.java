package io.github.delayqueue.dashboard;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * {@code delayqueue.dashboard.*}: the operator dashboard of a Spring MVC application.
 */
@ConfigurationProperties("delayqueue.dashboard")
public class DashboardProperties {

    /** Whether to serve the dashboard (a page and the JSON behind it). */
    private boolean enabled;

    /**
     * Path of the dashboard page, under the servlet context path; its JSON is under {@code <path>/api}. Starts with
     * a "/", does not end with one, and holds only letters, digits and "-", "_", ".", "/".
     */
    private String path = "/delayqueue";

    /**
     * Whether the dashboard may change queues: requeue, delete, cancel, run now, reschedule, pause and resume.
     * Read-only otherwise; every write is then refused with 403 and changes nothing.
     */
    private boolean actionsEnabled;

    /**
     * Whether the dashboard shows message payloads and headers. They are application data (personal data,
     * tokens): leave this off unless everyone who can open the dashboard may read them.
     */
    private boolean showPayloads;

    /** Longest payload shown, in UTF-8 bytes; a longer one is cut here and marked as cut (1KB to 1MB). */
    private DataSize maxPayloadSize = DataSize.ofKilobytes(16);

    /** How often the page refreshes itself (1s to 10m). */
    private Duration refreshInterval = Duration.ofSeconds(3);

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return this.path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public boolean isActionsEnabled() {
        return this.actionsEnabled;
    }

    public void setActionsEnabled(boolean actionsEnabled) {
        this.actionsEnabled = actionsEnabled;
    }

    public boolean isShowPayloads() {
        return this.showPayloads;
    }

    public void setShowPayloads(boolean showPayloads) {
        this.showPayloads = showPayloads;
    }

    public DataSize getMaxPayloadSize() {
        return this.maxPayloadSize;
    }

    public void setMaxPayloadSize(DataSize maxPayloadSize) {
        this.maxPayloadSize = maxPayloadSize;
    }

    public Duration getRefreshInterval() {
        return this.refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
    }
}
