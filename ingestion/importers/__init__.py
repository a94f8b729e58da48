"""Native result formats, converted into an `arena-bundle/1` tar.gz on the way in.

Pure Python: no Django, no database. An importer only translates: the archive it
writes then takes the one normal ingest path (validation, limits, atomicity and
idempotency unchanged). One module per format (`harbor`, `tau_bench`, `tau2_bench`, `agentdojo`,
`transcripts.claude_code`), what they
share in `common`, the dispatch in `formats`, and `extract` for uploaded job archives.
"""

from ingestion.importers.agentdojo import convert_agentdojo
from ingestion.importers.common import Conversion, NativeParams
from ingestion.importers.extract import extract_job_archive
from ingestion.importers.formats import (
    DESCRIPTIONS,
    FORMATS,
    REQUIRED_PARAMS,
    convert_native,
    detect_format,
)
from ingestion.importers.harbor import convert_harbor, harbor_outcome
from ingestion.importers.tau_bench import convert_tau_bench, tau_turns

__all__ = [
    "DESCRIPTIONS",
    "FORMATS",
    "REQUIRED_PARAMS",
    "Conversion",
    "NativeParams",
    "convert_agentdojo",
    "convert_harbor",
    "convert_native",
    "convert_tau_bench",
    "detect_format",
    "extract_job_archive",
    "harbor_outcome",
    "tau_turns",
]
