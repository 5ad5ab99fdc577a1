package io.github.delayqueue.sample.campaigns;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.github.delayqueue.core.MessageContext;
import io.github.delayqueue.core.sets.JobSet;
import io.github.delayqueue.spring.ContextAwareDelayMessageHandler;
import io.github.delayqueue.spring.DelayHandler;

/**
 * Sends one campaign e-mail (here: logs it). Each is a member of its campaign's job set, whose id the handler reads
 * with {@link JobSet#setOf}. An address at {@code bounce.example} has no mailbox: {@link MailboxNotFoundException}
 * is never retried, so the e-mail is dead at once, and the campaign completes without its report; its status lists
 * the dead e-mail, which waits in CAMPAIGN_EMAIL's dead letters (requeued and sent, it counts as sent).
 */
@Component
@DelayHandler(value = "CAMPAIGN_EMAIL", concurrency = "8", noRetryFor = MailboxNotFoundException.class)
class CampaignEmailSender implements ContextAwareDelayMessageHandler<CampaignEmail> {

    private static final Logger log = LoggerFactory.getLogger(CampaignEmailSender.class);

    @Override
    public void handle(CampaignEmail email, MessageContext context) {
        if (email.to().endsWith("@bounce.example")) {
            throw new MailboxNotFoundException(email.to());
        }
        log.info("Campaign '{}' (job set {}): e-mail to {}", email.campaign(), JobSet.setOf(context), email.to());
    }
}
