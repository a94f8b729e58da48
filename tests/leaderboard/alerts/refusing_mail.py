"""A mail backend that refuses the messages to some addresses, as a mail server that
rejects a recipient does (SMTPRecipientsRefused), and delivers the others to the test
mailbox (django.core.mail.outbox)."""

from __future__ import annotations

import smtplib

from django.core.mail.backends import locmem

REFUSED: set[str] = set()


class EmailBackend(locmem.EmailBackend):
    def send_messages(self, messages):
        for message in messages:
            refused = {address for address in message.to if address in REFUSED}
            if refused:
                raise smtplib.SMTPRecipientsRefused(
                    {address: (550, b"mailbox unavailable") for address in refused}
                )
        return super().send_messages(messages)
