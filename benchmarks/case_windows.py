"""The CPU of reading cases again alone from their files, by read-ahead window.

A run past the eval-file budget reads most cases again from their spans (``CaseSpans``),
in file order. Each read opens the file and reads the case's bytes; with a read-ahead window
the cases after it come from the bytes read with it. This script loads ``scale.py``'s files
of 1,000 cases (expected and recorded), then reads every case alone through windows of
several sizes, and prints the CPU microseconds per case of the read and the digest check
(validation, the same for every window, left out) and with validation, best of 3.

    python benchmarks/case_windows.py
    python benchmarks/case_windows.py --cases 5000 --windows 1 65536
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _per_case(items: list[tuple[Path, Any, int]]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.thread_time()
        for path, spans, index in items:
            spans.case(path, index)
        best = min(best, time.thread_time() - started)
    return best / len(items) * 1e6


def main(argv: Optional[list[str]] = None) -> int:
    import scale  # a sibling script: the data
    from agenteval._loading import _case_spans
    from agenteval._run._files import EvalFiles

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--windows", type=int, nargs="+", default=[1, 4096, 16384, 65536, 262144, 1 << 20])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agenteval-windows-") as tmp:
        manifest, _ = scale.prepared(Path(tmp) / "data", args.cases, per_file=1000)
        paths = [Path(pair[key]) for pair in manifest["pairs"] for key in ("expected", "actual")]
        files = EvalFiles(budget=0)
        for path in paths:
            files.read(path)
        spans = {path: files._spans[path][0] for path in paths}
        items = [(path, spans[path], i) for path in paths for i in range(len(spans[path]))]
        validate = _case_spans.EvalCase
        print(f"{len(items)} cases read alone, CPU us per case (best of 3)")
        print(f"  {'window (bytes)':>14} {'read + digest':>14} {'with validation':>16}")
        for window in args.windows:
            _case_spans._WINDOW = window
            _case_spans.EvalCase = type("_Unvalidated", (), {"model_validate_json": staticmethod(len)})
            read = _per_case(items)
            _case_spans.EvalCase = validate
            whole = _per_case(items)
            print(f"  {window:>14} {read:>14.2f} {whole:>16.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
