"""Partitioning experiment: what hash-partitioning the runs table by submission buys.

    python bench/partitions.py [--rows 5000000] [--partitions 16] [--copy 200000]

The claim it supports (docs/architecture.md, "Past one machine"): past one table of
runs, PostgreSQL's declarative partitioning by submission keeps an ingest's COPY and a
withdrawal's delete proportional to the submission, and the per-group aggregate runs
partition by partition. In a scratch schema of the configured database it builds two
tables of the runs table's shape and main indexes, one plain and one hash-partitioned
on submission_id, fills both with the same --rows generated rows (set-based), then
reports, as ratios partitioned / plain in the same run:

* one `GROUP BY harness, model, task` over every row (partition-wise aggregation on);
* a COPY of --copy more rows of one new submission;
* deleting one submission's rows (a withdrawal), and a plain table's DELETE against a
  partitioned table's DELETE of the same rows.

The schema is dropped at the end, whatever happens.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SCHEMA = "bench_partitions"
COLUMNS = "id, submission_id, harness_id, model_id, task_id, trial, outcome, cost_usd"
SHAPE = """(
    id bigint NOT NULL, submission_id int NOT NULL, harness_id int NOT NULL,
    model_id int NOT NULL, task_id int NOT NULL, trial int NOT NULL,
    outcome varchar(16) NOT NULL, cost_usd numeric(12, 6))"""
# The runs table's natural key and its grouping index (ingestion.models.Run's Meta).
INDEXES = (
    "CREATE UNIQUE INDEX ON {t} (submission_id, id)",
    "CREATE INDEX ON {t} (harness_id, model_id, task_id)",
)
FILL = """INSERT INTO {t} SELECT g, g %% {subs}, g %% 40, (g / 40) %% 5, (g / 200) %% 400,
    1 + g %% 8, CASE WHEN g %% 3 = 0 THEN 'fail' ELSE 'pass' END, (g %% 500) / 1000.0
    FROM generate_series(%(start)s, %(stop)s - 1) AS g"""
GROUP_BY = """SELECT harness_id, model_id, task_id, count(*),
    count(*) FILTER (WHERE outcome = 'pass'), sum(cost_usd) FROM {t}
    GROUP BY harness_id, model_id, task_id"""
SUBMISSIONS = 200


def database_url() -> str:
    """The configured database (DATABASE_URL, or the embedded server's, as Django sees it)."""
    from bench._django import setup

    setup()
    from django.db import connection

    from arena.embedded_db import database_url_of

    return database_url_of(connection.settings_dict)


def timed(conn: psycopg.Connection, statement: sql.Composable, repeat: int = 3) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        conn.execute(statement)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def build(conn: psycopg.Connection, rows: int, partitions: int) -> None:
    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(SCHEMA)))
    conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(SCHEMA)))
    plain, parted = table("plain"), table("parted")
    conn.execute(sql.SQL("CREATE TABLE {} " + SHAPE).format(plain))
    conn.execute(
        sql.SQL("CREATE TABLE {} " + SHAPE + " PARTITION BY HASH (submission_id)").format(parted)
    )
    for i in range(partitions):
        conn.execute(
            sql.SQL(
                "CREATE TABLE {} PARTITION OF {} FOR VALUES WITH (MODULUS {}, REMAINDER {})"
            ).format(table(f"parted_{i}"), parted, sql.Literal(partitions), sql.Literal(i))
        )
    for target in (plain, parted):
        for index in INDEXES:
            conn.execute(sql.SQL(index).format(t=target))
        step = 1_000_000
        for start in range(0, rows, step):
            fill = sql.SQL(FILL).format(t=target, subs=sql.Literal(SUBMISSIONS))
            conn.execute(fill, {"start": start, "stop": min(rows, start + step)})
        conn.execute(sql.SQL("ANALYZE {}").format(target))
        print(f"  {target.as_string(conn)}: {rows:,} rows", flush=True)


def table(name: str) -> sql.Identifier:
    return sql.Identifier(SCHEMA, name)


def copy_seconds(conn: psycopg.Connection, target: sql.Identifier, first_id: int, n: int) -> float:
    buffer = io.StringIO()
    for i in range(first_id, first_id + n):
        buffer.write(f"{i}\t{SUBMISSIONS + 1}\t{i % 40}\t{i % 5}\t{i % 400}\t1\tpass\t0.01\n")
    data = buffer.getvalue().encode()
    started = time.perf_counter()
    with conn.transaction():
        copy = sql.SQL("COPY {} ({}) FROM STDIN").format(target, sql.SQL(COLUMNS))
        with conn.cursor().copy(copy) as stream:
            stream.write(data)
    return time.perf_counter() - started


def delete_seconds(conn: psycopg.Connection, target: sql.Identifier) -> float:
    started = time.perf_counter()
    with conn.transaction():
        conn.execute(
            sql.SQL("DELETE FROM {} WHERE submission_id = {}").format(
                target, sql.Literal(SUBMISSIONS + 1)
            )
        )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--copy", type=int, default=200_000)
    args = parser.parse_args()
    with psycopg.connect(database_url(), autocommit=True) as conn:
        try:
            print(f"building two tables of {args.rows:,} rows ...", flush=True)
            build(conn, args.rows, args.partitions)
            conn.execute("SET enable_partitionwise_aggregate = on")
            plain, parted = table("plain"), table("parted")
            figures = {}
            for label, target in (("plain", plain), ("partitioned", parted)):
                group_by = timed(conn, sql.SQL(GROUP_BY).format(t=target))
                copy = copy_seconds(conn, target, args.rows, args.copy)
                delete = delete_seconds(conn, target)
                figures[label] = (group_by, copy, delete)
            report(figures, args)
        finally:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(SCHEMA)))


def report(figures: dict[str, tuple[float, float, float]], args) -> None:
    names = ("GROUP BY every row", f"COPY {args.copy:,} rows", "delete one submission")
    print(f"\n{args.rows:,} rows, {args.partitions} hash partitions on submission_id")
    for i, name in enumerate(names):
        plain, parted = figures["plain"][i], figures["partitioned"][i]
        ratio = parted / plain if plain else float("nan")
        print(f"  {name:<24} plain {plain:7.3f} s  partitioned {parted:7.3f} s  ratio {ratio:.2f}x")


if __name__ == "__main__":
    main()
