"""The moderation room: conflict decisions, withdrawals, the Under Review list, accounts.

Every decision is an append-only record (who, what, when, why) and the current state
is derived from the latest one. Each service checks the acting user's permission
itself, so the admin is only a thin layer and no other caller can skip the check; a
decision that moves figures announces that evidence changed (`ingestion.evidence`),
and the recompute room takes it from there.
"""
