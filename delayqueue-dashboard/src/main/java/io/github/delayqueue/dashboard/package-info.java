/**
 * The operator dashboard: a page with every queue's counts, due times, lateness and dead letters, and actions on
 * them, in Spring MVC applications. Turned on with {@code delayqueue.dashboard.enabled=true}; see
 * {@link io.github.delayqueue.dashboard.DashboardProperties}.
 */
@NullMarked
package io.github.delayqueue.dashboard;

import org.jspecify.annotations.NullMarked;
