"""Reading and validating `arena-bundle/1` uploads. Pure Python: no Django, no database.

Modules, each one job: `limits` (the one table of limits and enumerations), `errors`,
`archive` (member safety from headers), `inflate` (bounded gzip), `container` and its
kinds `tar_gz`, `zip_archive`, `json_document`, `lines` (jsonl streaming, the BOM),
`schema` (the Structs), `messages`, `fields` (slow-path checks), `decoder` (fast
path), `validators` (runs and sessions), `documents` (manifest, trajectories) and
`reader` (`open_bundle`, `open_archive`, the Bundle API).
"""

from ingestion.bundles.errors import BundleError, BundleRejected, ErrorCollector, rejected
from ingestion.bundles.limits import MAX_REPORTED_ERRORS, BundleLimits
from ingestion.bundles.reader import Bundle, open_archive, open_bundle
from ingestion.bundles.schema import FORMAT, Manifest, RunRecord, SessionRecord, Turn

__all__ = [
    "FORMAT",
    "MAX_REPORTED_ERRORS",
    "Bundle",
    "BundleError",
    "BundleLimits",
    "BundleRejected",
    "ErrorCollector",
    "Manifest",
    "RunRecord",
    "SessionRecord",
    "Turn",
    "open_archive",
    "open_bundle",
    "rejected",
]
