"""Rollups of the runs, written at ingest: the SQL (`sql`) and the latency sketch
(`sketch`, pure). The models are ingestion.models.rollups; the writes are the services of
ingestion.services.rollups."""
