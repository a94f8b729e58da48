"""Which rows a rollup statement reads or deletes: some submissions' (`submission_ids`),
or only their rows of some models too (`model_ids`): a model merge rebuilds the merged
models' groups, never the rest of the submissions that hold them."""

from __future__ import annotations

from psycopg import sql


def rollup_scope(alias: str | None = None, *, by_model: bool = False) -> sql.Composed:
    """`submission_id = ANY(%(submission_ids)s)` [`AND model_id = ANY(%(model_ids)s)`]."""

    def column(name: str) -> sql.Composable:
        return sql.Identifier(alias, name) if alias else sql.Identifier(name)

    parts = [sql.SQL("{} = ANY(%(submission_ids)s)").format(column("submission_id"))]
    if by_model:
        parts.append(sql.SQL("{} = ANY(%(model_ids)s)").format(column("model_id")))
    return sql.SQL(" AND ").join(parts)
