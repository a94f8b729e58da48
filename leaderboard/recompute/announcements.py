"""What the recompute room announces: "a snapshot is being swapped in", and "the
current snapshot's figures are about to change in place" (its deferred interval bounds).

Sent with `snapshot_id` inside the swap's transaction, before the swap: a listener
that starts work elsewhere (the web layer's page warm) does so on commit, and one that
must act while the database still names the old snapshot (holding readers on it) can.
The recompute room does not know who listens: the web layer sits above it.
"""

from __future__ import annotations

from django.dispatch import Signal

snapshot_swapping = Signal()
# Sent with `snapshot_id` in the interval fill's transaction, before it writes: the
# snapshot's pages are keyed by its pending state, so its listeners warm them again.
snapshot_filling = Signal()
