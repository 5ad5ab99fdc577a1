package io.github.delayqueue.dashboard;

import org.springframework.http.HttpStatus;

/** A request the dashboard refuses, with the status and the message the page shows. Nothing was changed. */
final class DashboardException extends RuntimeException {

    private final HttpStatus status;

    DashboardException(HttpStatus status, String message) {
        super(message);
        this.status = status;
    }

    HttpStatus status() {
        return this.status;
    }
}
