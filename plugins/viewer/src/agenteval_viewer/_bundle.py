"""The viewer's data contract: what the front end reads, built from a recorded run.

Three payloads, one module each (``docs/viewer.md`` documents every key for third-party
front ends):

* ``run_summary(run)`` (``_summary_payload``) — the run header and one entry per criterion;
* ``case_index(run)`` and ``head_index(run)`` (``_index_payload``) — the columnar index of
  every planned case;
* ``case_detail(run, row)`` and ``detail_chunks`` (``_detail_payload``) — everything the case
  drawer shows for one row.

``scan(run)`` (``_scan``) is the one streaming pass over the records that the summary and
the index share. This module gathers them: it is the ``bundle`` the server's store calls
(tests stand in their own), and ``PAYLOAD_MODULES`` are the files whose change invalidates
the disk cache.
"""

from __future__ import annotations

from . import _detail_payload, _index_payload, _scan, _summary_payload
from ._detail_payload import DETAIL_SCHEMA, case_detail, detail_chunks
from ._index_payload import HEAD_ROWS, INDEX_SCHEMA, case_index, head_index
from ._scan import STATUS_LEGEND, Scan, row_of, scan
from ._summary_payload import HISTOGRAM_BINS, SUMMARY_SCHEMA, run_summary

__all__ = [
    "DETAIL_SCHEMA",
    "HEAD_ROWS",
    "HISTOGRAM_BINS",
    "INDEX_SCHEMA",
    "PAYLOAD_MODULES",
    "STATUS_LEGEND",
    "SUMMARY_SCHEMA",
    "Scan",
    "case_detail",
    "case_index",
    "detail_chunks",
    "head_index",
    "row_of",
    "run_summary",
    "scan",
]

#: The modules the payloads are built by (their files stamp the disk cache's entries).
PAYLOAD_MODULES = (_scan, _summary_payload, _index_payload, _detail_payload)
