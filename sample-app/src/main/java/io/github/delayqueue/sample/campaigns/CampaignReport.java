package io.github.delayqueue.sample.campaigns;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayHandler;

/**
 * A campaign's report: the success callback of its job set, sent exactly once, after every e-mail of the campaign
 * was sent (acknowledged), whatever the retries and instances in between. The callback names its set in
 * {@link JobSet#SET_ID_HEADER}.
 */
@Component
@DelayHandler("CAMPAIGN_REPORT")
public class CampaignReport implements ContextAwareDelayMessageHandler<CampaignReportRequest> {

    private static final Logger log = LoggerFactory.getLogger(CampaignReport.class);

    private final List<String> reported = new CopyOnWriteArrayList<>();

    @Override
    public void handle(CampaignReportRequest request, MessageContext context) {
        String set = context.headers().get(JobSet.SET_ID_HEADER);
        log.info("Campaign '{}' (job set {}): all {} e-mails sent", request.campaign(), set, request.recipients());
        this.reported.add(set);
    }

    /** The job sets whose report ran on this instance. */
    public List<String> reported() {
        return List.copyOf(this.reported);
    }
}
