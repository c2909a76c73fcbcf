"""Where a run's recorded turns come from, when the agent does not run: ``--actual`` files
(ADK eval sets, or files of another data format), earlier run folders, or the embedding
API's ``actual`` argument.

``RecordedActuals`` gathers the sources and finds a case's recorded runs by its id;
``RecordedTurns`` is what a ``Plan`` holds: each planned case's runs, read from their file
only when the case is run (``EvalFiles`` keeps what fits its budget).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from .._agents import AgentFailure
from .._loading import read_eval_file
from .._loading._eval_files import AGENT_ERROR_KEY
from .._loading._formats import FormatReader, choose_format, read_in_format
from ..errors import DataError
from ..models import EvalCase, EvalSet, Invocation
from ..runs import InputFile, RecordedRun
from ._case_notes import CaseNotes
from ._files import EvalFiles
from ._problems import InputProblems

__all__ = [
    "InFile",
    "Outcome",
    "RecordedActuals",
    "RecordedTurns",
    "actuals_by_case",
    "built_turns",
    "outcome_of",
    "read_actual_sources",
]

#: One run's outcome for a case: its actual turns, or why the agent produced none.
Outcome = Union[Sequence[Invocation], AgentFailure]


@dataclass(frozen=True, slots=True)
class InFile:
    """A recorded run of a case that stays in its ``--actual`` file until it is needed."""

    path: Path
    case_id: str


class RecordedActuals:
    """The agent's turns recorded earlier, found by case id in O(1).

    Each ``--actual`` file is one run of the agent; a run folder contributes one run per
    run index. When several sources hold a case, each is a run; sources of the case's own
    eval set win over others. Turns from files are read from the file when a case needs
    them (``EvalFiles`` keeps what fits its budget), so a large run does not hold them all.
    """

    def __init__(self, files: Optional[EvalFiles] = None) -> None:
        self.eval_files = files if files is not None else EvalFiles()
        self._by_id: dict[str, list[tuple[str, Union[Outcome, InFile]]]] = {}
        self.files: list[InputFile] = []
        self.warnings: list[str] = []
        self._described: list[str] = []
        #: ``--actual`` files in another data format, read once the selected cases are known.
        self.in_format: list[tuple[Path, type[FormatReader]]] = []

    def add_file(self, path: Path) -> None:
        path = Path(path)
        noted = _ActualCases(path)
        loaded = self.eval_files.read(path, noted)
        if noted.problems:  # after the file's own problems, which reading it raised first
            raise noted.problems[0]
        ids = noted.ids
        self.files.append(InputFile(path=str(loaded.source), sha256=loaded.sha256))
        self._described.append(str(loaded.source))
        self.warnings.extend(loaded.warnings)
        set_id = loaded.eval_set.eval_set_id
        for case_id in ids:
            self._by_id.setdefault(case_id, []).append((set_id, InFile(path, case_id)))

    def add_in_format(self, path: Path, reader: type[FormatReader], cases: Sequence[EvalCase]) -> None:
        """A file in another data format (``agenteval.formats``), read now for ``cases``; its
        turns are held in memory."""
        eval_set, digest, warnings = read_in_format(reader, path, cases)
        self.warnings.extend(warnings)
        self.files.append(InputFile(path=str(path), sha256=digest))
        self._described.append(str(path))
        for case in eval_set.eval_cases:
            outcome = outcome_of(case, str(path))
            self._by_id.setdefault(case.eval_id, []).append((eval_set.eval_set_id, outcome))

    def add_run(self, run: RecordedRun) -> None:
        self.files.append(InputFile(path=str(run.folder)))
        self._described.append(str(run.folder))
        for record in run.records():
            if record.actual is None:
                continue
            actual = record.actual
            outcome: Outcome
            if actual.error is not None:
                outcome = AgentFailure(
                    actual.error.message, actual.error_code or "agent_error", actual.error.traceback
                )
            else:
                outcome = actual.invocations
            self._by_id.setdefault(record.case_id, []).append((record.eval_set_id, outcome))

    def runs_for(self, eval_set_id: str, case_id: str, where: str) -> list[Union[Outcome, InFile]]:
        """The case's actual conversations (or where they are), one per source that holds it."""
        matches = self._by_id.get(case_id)
        if not matches:
            files = ", ".join(self._described)
            raise DataError(
                f"case {case_id!r} has no actual invocations: no case with that eval_id in "
                f"{files}. Add it there (an eval set whose cases carry the same eval_ids), or "
                f"select only the cases you have, e.g. {where}:<case_id>",
                source=where,
            )
        same_set = [outcome for set_id, outcome in matches if set_id == eval_set_id]
        return same_set or [outcome for _, outcome in matches]

    def outcome(self, ref: Union[Outcome, InFile]) -> Outcome:
        """A recorded run's turns, read from its file when they are not in memory."""
        if not isinstance(ref, InFile):
            return ref
        case = self.eval_files.case(ref.path, ref.case_id)
        if case is None:
            raise DataError(f"case {ref.case_id!r} is no longer in the file", source=str(ref.path))
        return outcome_of(case, str(ref.path))

    def read_in_formats(self, cases: Sequence[EvalCase]) -> list[str]:
        """Read the ``--actual`` files in another data format (``in_format``) for the
        selected ``cases``; their readers' warnings (every file's problems reported together)."""
        before = len(self.warnings)
        problems = InputProblems()
        for path, reader in self.in_format:
            with problems.collect():
                self.add_in_format(path, reader, cases)
        problems.raise_any()
        return self.warnings[before:]


class _ActualCases(CaseNotes):
    """What planning notes of each case of an ``--actual`` file: its id, and whether it holds
    actual turns (a scenario is an error now, not mid-run)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.ids: list[str] = []
        self.problems: list[DataError] = []

    @staticmethod
    def note(path: Path, index: int, case: EvalCase) -> str:
        outcome_of(case, str(path))  # a problem: the case is read where __call__ keeps it
        return case.eval_id

    def add(self, index: int, note: str) -> None:
        self.ids.append(note)

    def __call__(self, index: int, case: EvalCase) -> None:
        try:
            self.add(index, self.note(self.path, index, case))
        except DataError as exc:  # kept, raised after the file's own problems
            self.ids.append(case.eval_id)
            self.problems.append(exc)


class RecordedTurns(Mapping[tuple[int, str], Sequence[Outcome]]):
    """The recorded runs of each planned case, by (eval set index, case id); each case's
    turns are read when it is looked up (see ``RecordedActuals``)."""

    def __init__(
        self,
        refs: Mapping[tuple[int, str], Sequence[Union[Outcome, InFile]]],
        actuals: Optional[RecordedActuals] = None,
    ) -> None:
        self._refs = refs
        self._actuals = actuals

    def _outcome(self, ref: Union[Outcome, InFile], built: bool = True) -> Outcome:
        # without recorded actuals no ref is in a file
        outcome = self._actuals.outcome(ref) if self._actuals is not None else ref
        return built_turns(outcome) if built else outcome  # type: ignore[return-value]  # (no InFile here)

    def __getitem__(self, key: tuple[int, str]) -> Sequence[Outcome]:
        return [self._outcome(ref) for ref in self._refs[key]]

    def run(self, key: tuple[int, str], run_index: int, *, built: bool = True) -> Optional[Outcome]:
        """The case's turns of one run (1-based), or ``None`` when no source has that run;
        ``built=False``: turns a format reader builds when read left unbuilt (``built_turns``)."""
        refs = self._refs.get(key, ())
        return self._outcome(refs[run_index - 1], built) if run_index <= len(refs) else None

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return iter(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def runs(self, key: tuple[int, str]) -> int:
        """How many recorded runs the case has (nothing is read)."""
        return len(self._refs.get(key, ()))


def built_turns(outcome: Any) -> Any:
    """``outcome`` with its turns built: turns a format reader builds when they are read
    (``FormatReader.read_actual``: a sequence that is no list) are built once, when the run
    starts, and let go with it; anything else is as it is."""
    if outcome is None or isinstance(outcome, (list, AgentFailure)):
        return outcome
    return list(outcome)


def outcome_of(case: EvalCase, where: str) -> Outcome:
    error = (case.model_extra or {}).get(AGENT_ERROR_KEY)
    if isinstance(error, dict):
        return AgentFailure(str(error.get("message", "")), str(error.get("code") or "agent_error"))
    if case.conversation is None:
        raise DataError(
            f"eval_cases[{case.eval_id!r}] holds a conversation scenario, "
            "not the agent's actual conversation",
            source=where,
        )
    return case.conversation


def read_actual_sources(
    paths: Sequence[Union[str, Path]],
    problems: InputProblems,
    files: EvalFiles,
    format_in: Optional[str] = None,
) -> RecordedActuals:
    """The ``--actual`` sources: run folders and ADK files now; files in another data format
    wait in ``in_format`` until the selected cases are known (``RecordedActuals.read_in_formats``)."""
    actuals = RecordedActuals(files)
    for raw in paths:
        path = Path(raw)
        with problems.collect():
            if path.is_dir():
                actuals.add_run(RecordedRun.open(path))
                continue
            reader = choose_format(path, format_in)
            if reader is None:
                actuals.add_file(path)
            else:
                actuals.in_format.append((path, reader))
    return actuals


def actuals_by_case(actual: Any, cases: Sequence[EvalCase], warnings: list[str]) -> Mapping[str, Outcome]:
    """The actual turns by case id: an ``EvalSet``, a file of it (or in another data format,
    read for ``cases``), or a mapping as given."""
    if isinstance(actual, (str, Path)):
        path = Path(actual)
        reader = choose_format(path)
        if reader is None:
            actual = read_eval_file(path).eval_set
        else:
            actual, _, found = read_in_format(reader, path, cases)
            warnings.extend(found)
    if isinstance(actual, EvalSet):
        scenarios = [
            c.eval_id
            for c in actual.eval_cases
            if c.conversation is None and AGENT_ERROR_KEY not in (c.model_extra or {})
        ]
        if scenarios:
            msg = (
                f"actual case(s) {', '.join(map(repr, scenarios))} hold a conversation scenario, "
                "not the agent's actual conversation"
            )
            raise DataError(msg)
        return {c.eval_id: outcome_of(c, "<actual>") for c in actual.eval_cases}
    return actual
