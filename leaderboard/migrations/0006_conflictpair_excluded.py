"""The conflict rule, written once: the review queue's view also says which pairs the
boards exclude (`excluded`), and the board queries read it instead of a copy of the rule.

Rule (methodology §2.2): a pair is excluded when a task author contributes to the
harness version (`natural`) and the latest decision did not dismiss it, or when the
latest decision confirmed it; the Minimal baseline is never excluded.
"""

import importlib

from django.db import migrations, models

CONFLICT_PAIR_VIEW = """
CREATE OR REPLACE VIEW leaderboard_conflictpair AS
WITH natural_conflicts AS (
    SELECT hc.harness_id, ta.task_id,
           array_agg(DISTINCT p.handle ORDER BY p.handle) AS people
    FROM ingestion_harness_contributors hc
    JOIN ingestion_task_authors ta ON ta.person_id = hc.person_id
    JOIN ingestion_person p ON p.id = hc.person_id
    GROUP BY hc.harness_id, ta.task_id
),
latest_decisions AS (
    SELECT DISTINCT ON (harness_id, task_id) id, harness_id, task_id, decision
    FROM leaderboard_conflictdecision
    ORDER BY harness_id, task_id, decided_at DESC, id DESC
),
pairs AS (
    SELECT harness_id, task_id FROM natural_conflicts
    UNION
    SELECT harness_id, task_id FROM latest_decisions
)
SELECT pairs.harness_id::text || '-' || pairs.task_id::text AS id,
       pairs.harness_id,
       pairs.task_id,
       h.minimal_baseline,
       nc.harness_id IS NOT NULL AS shown_by_data,
       COALESCE(nc.people, '{}'::varchar[]) AS people,
       (SELECT count(*)::int
        FROM ingestion_run r
        JOIN ingestion_submission s ON s.id = r.submission_id AND s.status = 'ingested'
        WHERE r.harness_id = pairs.harness_id AND r.task_id = pairs.task_id
              AND r.outcome <> 'infra_error') AS runs_affected,
       CASE WHEN h.minimal_baseline THEN 'exempt'
            WHEN d.decision = 'dismiss' THEN 'dismissed'
            WHEN d.decision = 'confirm' THEN 'confirmed'
            ELSE 'excluded' END AS state,
       (NOT h.minimal_baseline AND d.id IS NULL) AS needs_review,
       d.id AS latest_decision_id,
       (NOT h.minimal_baseline AND d.decision IS DISTINCT FROM 'dismiss') AS excluded
FROM pairs
JOIN ingestion_harness h ON h.id = pairs.harness_id
LEFT JOIN natural_conflicts nc
       ON nc.harness_id = pairs.harness_id AND nc.task_id = pairs.task_id
LEFT JOIN latest_decisions d ON d.harness_id = pairs.harness_id AND d.task_id = pairs.task_id
"""

# The view before this migration (0003), for reversing.
PREVIOUS_VIEW = importlib.import_module("leaderboard.migrations.0003_moderation").CONFLICT_PAIR_VIEW


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0005_boardstate_sessions_pending")]

    operations = [
        migrations.RunSQL(
            CONFLICT_PAIR_VIEW,
            "DROP VIEW IF EXISTS leaderboard_conflictpair;" + PREVIOUS_VIEW,
            state_operations=[
                migrations.AddField(
                    model_name="conflictpair",
                    name="excluded",
                    field=models.BooleanField(
                        default=False, help_text="the boards leave this pair's runs out"
                    ),
                    preserve_default=False,
                ),
            ],
        ),
    ]
