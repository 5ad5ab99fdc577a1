package io.github.delayqueue.sample.campaigns;

/** A recipient whose mailbox does not exist: retrying cannot help, so the e-mail is dead-lettered at once. */
public class MailboxNotFoundException extends RuntimeException {

    public MailboxNotFoundException(String to) {
        super("no mailbox <" + to + ">");
    }
}
