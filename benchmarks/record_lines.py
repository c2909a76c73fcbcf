"""A run folder's records in their two line forms: every field, and the turns' unset fields
left out (what ``record_line`` writes since agenteval-engine 0.19).

For each size, a run of one run per case and a run of three runs per case are each written
twice by ``readers.write_run`` (a real run's records under new case ids, as the readers
benchmark writes them): once as this engine writes records, once with every field of every
model written (``null`` included), as engines before 0.19 wrote them. Then, in this process,
the two forms in turn (``--repeat`` rounds; the least CPU seconds of each), it reads every
case's records:

* ``scored``: ``case_records(scored=True)``, each record only as far as its result needs
  (what the JSON, ``jsonl``, JUnit and table reports read);
* ``whole``: ``case_records()``, every record whole (what ``view``'s case pages, a case's
  detail and a report of failing cases read).

It prints ``results.jsonl``'s size and both reads' CPU seconds for each form, and the
share the new form takes of the old (``new/old``). Both forms are checked to read back as
the same records. CPU seconds are the steadier figure on a shared machine; only the ratios
within one run compare.

    python benchmarks/record_lines.py                        # 1k and 10k cases
    python benchmarks/record_lines.py --sizes 1000 10000 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers  # noqa: E402  (a sibling script: the template run and the folder writer)

FORMS = ("old", "new")
KINDS = ("complete", "3 runs")


@contextlib.contextmanager
def every_field() -> Iterator[None]:
    """Records written with every field, as before 0.19 (the writer's ``record_line``)."""
    from agenteval.runs import _folder

    def whole(record):  # type: ignore[no-untyped-def]
        return type(record).__pydantic_serializer__.to_json(record, by_alias=True) + b"\n"

    kept = _folder.record_line
    _folder.record_line = whole
    try:
        yield
    finally:
        _folder.record_line = kept


def read_cpu(folder: Path, scored: bool) -> float:
    """CPU seconds to read every case's records of the run at ``folder``."""
    from agenteval.runs import RecordedRun

    run = RecordedRun.open(folder)
    started = time.process_time()
    for _ in run.case_records(scored=scored):
        pass
    return time.process_time() - started


def same_records(first: Path, second: Path) -> bool:
    """Whether two run folders' records read back equal, key by key."""
    from agenteval.runs import RecordedRun

    def keyed(folder: Path) -> dict:
        records = RecordedRun.open(folder).records()
        return {record.key: record.model_copy(update={"run_id": ""}) for record in records}

    return keyed(first) == keyed(second)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3, help="rounds of reads: the least CPU of each")
    args = parser.parse_args(argv)
    print(f"{'cases':>7} {'kind':<9}{'form':<8}{'MB':>8}{'scored s':>10}{'whole s':>9}")
    with tempfile.TemporaryDirectory(prefix="agenteval-lines-") as tmp:
        root = Path(tmp)
        template = readers._template(root)
        for size in args.sizes:
            for kind in KINDS:
                folders = {}
                for form in FORMS:
                    target = root / f"{size}-{kind}-{form}"
                    with every_field() if form == "old" else contextlib.nullcontext():
                        folders[form] = readers.write_run(template, target, size, kind)
                if not same_records(folders["old"], folders["new"]):
                    print(f"{size} {kind}: the two forms read back differently", file=sys.stderr)
                    return 1
                best: dict[tuple[str, bool], float] = {}
                for _ in range(args.repeat):
                    for form in FORMS:
                        for scored in (True, False):
                            seconds = read_cpu(folders[form], scored)
                            key = (form, scored)
                            best[key] = min(best.get(key, seconds), seconds)
                sizes = {form: (folders[form] / "results.jsonl").stat().st_size / 1e6 for form in FORMS}
                for form in FORMS:
                    print(
                        f"{size:>7} {kind:<9}{form:<8}{sizes[form]:>8.1f}"
                        f"{best[(form, True)]:>10.3f}{best[(form, False)]:>9.3f}"
                    )
                print(
                    f"{size:>7} {kind:<9}{'new/old':<8}{sizes['new'] / sizes['old']:>8.2f}"
                    f"{best[('new', True)] / best[('old', True)]:>10.2f}"
                    f"{best[('new', False)] / best[('old', False)]:>9.2f}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
