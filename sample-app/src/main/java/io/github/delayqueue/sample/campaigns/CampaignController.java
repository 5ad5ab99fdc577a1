package io.github.delayqueue.sample.campaigns;

import java.time.Duration;
import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.github.delayqueue.core.SendRequest;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.core.sets.SetStatus;
import io.github.delayqueue.sample.SampleQueues;
import io.github.delayqueue.spring.DelayQueueAdmin;
import io.github.delayqueue.spring.DelayQueueTemplate;

/**
 * {@code POST /campaigns} sends a campaign's e-mails as one job set, with its report as the set's success callback;
 * {@code GET /campaigns/{id}} tells where the campaign stands (its set's status: e-mails pending, sent, dead).
 */
@RestController
@RequestMapping("/campaigns")
class CampaignController {

    private final DelayQueueTemplate template;
    private final DelayQueueAdmin admin;

    CampaignController(DelayQueueTemplate template, DelayQueueAdmin admin) {
        this.template = template;
        this.admin = admin;
    }

    record CreateCampaign(String name, List<String> recipients) {
    }

    record CampaignCreated(String id, int emails) {
    }

    @PostMapping
    @ResponseStatus(HttpStatus.ACCEPTED)
    CampaignCreated create(@RequestBody CreateCampaign request) {
        if (request.recipients() == null || request.recipients().isEmpty()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "a campaign needs at least one recipient");
        }
        List<SendRequest> emails = request.recipients().stream()
                .map(to -> SendRequest.of(new CampaignEmail(request.name(), to), Duration.ZERO))
                .toList();
        // the set's id is generated (and returned); every e-mail carries it, and the report is sent once all are sent
        String id = this.template.sendSet(JobSet.builder()
                .add(SampleQueues.CAMPAIGN_EMAIL.code(), emails)
                .onSuccess(SampleQueues.CAMPAIGN_REPORT.code(), SendRequest.of(
                        new CampaignReportRequest(request.name(), emails.size()), Duration.ZERO))
                .build());
        return new CampaignCreated(id, emails.size());
    }

    /**
     * Where a campaign stands, from its job set's status.
     *
     * @param emails     e-mails in the campaign
     * @param pending    e-mails not yet sent nor dead (waiting, or being retried)
     * @param sent       e-mails sent (acknowledged)
     * @param dead       e-mails that died (in CAMPAIGN_EMAIL's dead letters)
     * @param complete   whether no e-mail is pending
     * @param reported   whether its report was sent (every e-mail sent)
     * @param deadEmails the message ids of the first e-mails that died
     */
    record CampaignStatus(String id, long emails, long pending, long sent, long dead, boolean complete,
            boolean reported, List<String> deadEmails) {

        static CampaignStatus of(SetStatus set) {
            return new CampaignStatus(set.id(), set.total(), set.pending(), set.acknowledged(), set.dead(),
                    set.complete(), set.successSent(), set.deadMembers().stream().map(SetStatus.Member::id).toList());
        }
    }

    /** The campaign's job set: counts, whether its report was sent, and the e-mails that died. */
    @GetMapping("/{id}")
    CampaignStatus status(@PathVariable String id) {
        try {
            JobSet.checkId(id);
        } catch (IllegalArgumentException e) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, e.getMessage());
        }
        return this.admin.setStatus(id).map(CampaignStatus::of).orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND,
                "no campaign '" + id + "' (never sent, or older than its retention)"));
    }
}
