package io.github.delayqueue.sample.campaigns;

/** The payload of a campaign's report: sent by its job set once every e-mail of the campaign went out. */
public record CampaignReportRequest(String campaign, int recipients) {
}
