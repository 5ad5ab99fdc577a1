package io.github.delayqueue.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the sample's business rules.
 *
 * @param paymentTimeout how long a new order may stay unpaid before it is cancelled
 * @param maxOrderCents  orders above this amount are rejected (and their transaction rolled back)
 * @param reminderLead   how long before a meeting's start its attendees are reminded
 */
@ConfigurationProperties("sample")
public record SampleProperties(@DefaultValue("15m") Duration paymentTimeout,
        @DefaultValue("1000000") long maxOrderCents, @DefaultValue("10m") Duration reminderLead) {
}
