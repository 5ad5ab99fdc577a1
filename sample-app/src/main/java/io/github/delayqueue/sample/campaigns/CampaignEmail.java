package io.github.delayqueue.sample.campaigns;

/** The payload of one campaign e-mail. */
public record CampaignEmail(String campaign, String to) {
}
