package io.github.delayqueue.sample.reports;

/** The payload of every tick of the report schedule, as declared in application.yml. */
public record ReportRequest(String kind) {
}
