"""The CPU of the ways to read and validate an eval file's cases, beside the ``json.loads`` floor.

Loading checks a file's JSON (``check_elements``: syntax, a key twice, numbers, surrogates,
a field in both spellings), then validates each case alone from its bytes; a run past the
eval-file budget validates most cases a second time, read alone from their spans. This
script times, on ``scale.py``'s data in one file (expected, then recorded turns), with the
collector paused as loading pauses it, best of 3, CPU milliseconds for the whole file:

- the floor (``json.loads``) and the check,
- each case validated alone from its bytes (what loading does), all of them at once
  (one ``TypeAdapter(list[EvalCase]).validate_json`` of the array, and ``EvalSet`` whole),
  and ``json.loads`` then ``model_validate`` per case,
- kept forms a case could be rebuilt from: ``pickle.loads`` of each case, and each case
  read again alone from the file (``CaseSpans.case``, what a run past the budget does).

    python benchmarks/loading_paths.py
    python benchmarks/loading_paths.py --cases 30000
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _best(work: Callable[[], Any]) -> float:
    """CPU milliseconds of ``work``, best of 3, the collector paused."""
    best = float("inf")
    for _ in range(3):
        gc.collect()
        gc.disable()
        try:
            started = time.process_time()
            work()
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
    return best * 1000


def _figures(path: Path) -> dict[str, float]:
    from agenteval._loading._eval_files import read_eval_cases
    from agenteval._loading._json_elements import check_elements
    from agenteval.models import EvalCase, EvalSet
    from pydantic import TypeAdapter

    data = path.read_bytes()
    spans = check_elements(data, source=str(path), what="an eval set", member="eval_cases", model=EvalSet)
    assert spans, f"{path}: not an eval set the checker walks"
    pieces = [data[begin:end] for begin, end in spans]
    array = data[spans[0][0] - 1 : spans[-1][1] + 1]
    assert array[:1] == b"[" and array[-1:] == b"]"
    bulk = TypeAdapter(list[EvalCase])
    cases = [EvalCase.model_validate_json(piece) for piece in pieces]
    pickled = [pickle.dumps(case, pickle.HIGHEST_PROTOCOL) for case in cases]
    where = read_eval_cases(path, lambda index, case: None).case_spans
    assert where is not None
    count, validate = len(pieces), EvalCase.model_validate_json
    return {
        "json.loads (the floor)": _best(lambda: json.loads(data)),
        "the check (check_elements)": _best(
            lambda: check_elements(
                data, source=str(path), what="an eval set", member="eval_cases", model=EvalSet
            )
        ),
        "each case validated alone (loading)": _best(lambda: [validate(p) for p in pieces]),
        "all at once: TypeAdapter(list[EvalCase])": _best(lambda: bulk.validate_json(array)),
        "all at once: EvalSet whole": _best(lambda: EvalSet.model_validate_json(data)),
        "json.loads + model_validate per case": _best(
            lambda: [EvalCase.model_validate(json.loads(p)) for p in pieces]
        ),
        "pickle.loads per case (a kept form)": _best(lambda: [pickle.loads(p) for p in pickled]),
        "each case read again alone (CaseSpans)": _best(lambda: [where.case(path, i) for i in range(count)]),
    }


def main(argv: Optional[list[str]] = None) -> int:
    import scale  # a sibling script: the data

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agenteval-loading-") as tmp:
        folder = Path(tmp) / "data"
        scale.prepared(folder, args.cases, per_file=None)
        files = {
            "expected": next((folder / "expected").glob("*.evalset.json")),
            "recorded": next((folder / "actual").glob("*.json")),
        }
        columns = {name: _figures(path) for name, path in files.items()}
    print(f"{args.cases} cases in one file: CPU ms, best of 3")
    names = list(next(iter(columns.values())))
    print(f"  {'':44}" + "".join(f"{name:>10}" for name in columns))
    for row in names:
        print(f"  {row:44}" + "".join(f"{columns[name][row]:10.0f}" for name in columns))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
