"""Loading eval files: the EvalSet schema and ADK's two legacy list formats.

Formats (detected from the JSON shape, not from the file name):

* ``evalset``: an ``EvalSet`` object (``*.test.json`` and ``*.evalset.json`` alike);
* ``legacy-flat``: ``[{"query", "expected_tool_use", "reference", ...}, ...]``, one
  conversation whose elements are turns (ADK's pytest path reads it);
* ``legacy-multi``: ``[{"name", "data": [turns], "initial_session"}, ...]``, one case per
  element (``adk eval`` reads it).

Legacy files are converted as ADK converts them, except that ids are deterministic
(``docs/compatibility.md``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel

from ..errors import DataError
from ..models import EvalCase, EvalSet, SessionInput
from ._case_spans import CaseSpans, digest_of
from ._json import FileBytes, gc_paused, parse_json, read_file
from ._json_elements import check_elements
from ._paths import describe_validation_error, json_path, json_type

__all__ = [
    "AGENT_ERROR_KEY",
    "Checked",
    "LoadedEvalSet",
    "Part",
    "check_eval_file",
    "eval_set_from_data",
    "load_eval_set",
    "read_eval_cases",
    "read_eval_file",
    "validate_part",
]

_FLAT_TURN_KEYS = {"query", "expected_tool_use", "expected_intermediate_agent_responses", "reference"}
_MULTI_CASE_KEYS = {"name", "data", "initial_session"}
_SUFFIXES = re.compile(r"(\.test|\.evalset)?\.json$", re.IGNORECASE)


@dataclass
class LoadedEvalSet:
    """An eval set with where it came from and what the loader had to say about it."""

    eval_set: EvalSet
    source: Optional[Path]
    format: str
    warnings: list[str] = field(default_factory=list)
    #: the sha256 of the file as read (``None`` for an eval set that is not a file).
    sha256: Optional[str] = None
    #: where each case is in the file, to read one again alone (``None``: a legacy
    #: file, an eval set that is not a file, or one the fast path did not validate).
    case_spans: Optional[CaseSpans] = field(default=None, repr=False, compare=False)


def _stem(path: Optional[Path]) -> str:
    return _SUFFIXES.sub("", path.name) if path is not None else "eval_set"


def load_eval_set(path: str | Path) -> EvalSet:
    """Load an eval file in any format ADK 2.13 reads; ``DataError`` if malformed."""
    return read_eval_file(Path(path)).eval_set


def read_eval_file(
    path: Path, *, initial_session: Optional[SessionInput] = None, checked_sha256: Optional[str] = None
) -> LoadedEvalSet:
    """Load an eval file with its format and warnings (see the module docstring).

    The file is first checked by the standard parser without building anything (syntax,
    duplicate keys, non-finite and out-of-range numbers, lone surrogates: each an error
    at its line:column). A valid eval set is then parsed and validated in one pass by
    pydantic's JSON parser, with the garbage collector paused (about three times faster
    than building the data and validating it). Anything else — a legacy list or a file
    with a problem — takes the slow path, which explains every problem with its JSON path.

    ``checked_sha256``: the file was read and checked before with this content; when it
    is unchanged, the standard parser's pass is skipped (a run reading a file again).

    A file an installed data format claims and holds eval cases in (``agenteval.formats``,
    e.g. Agent Platform datasets) is read by that format's reader; ``format`` is its name.
    """
    where = str(path)
    read = read_file(path, what="an eval set")
    if initial_session is None:
        from ._formats import HEAD_BYTES, eval_set_in_format

        found = eval_set_in_format(path, read.data[:HEAD_BYTES])
        if found is not None:
            eval_set, name, warnings = found
            check_unique_ids(eval_set, where)
            return LoadedEvalSet(
                eval_set=eval_set, source=path, format=name, warnings=warnings, sha256=read.sha256
            )
    loaded = _from_bytes(read, path, where, initial_session, checked=read.sha256 == checked_sha256)
    loaded.sha256 = read.sha256
    return loaded


#: A file's JSON checked by ``check_eval_file``: the sha256 of the bytes checked, and the
#: byte span of each of its cases.
Checked = tuple[str, list[tuple[int, int]]]


def check_eval_file(path: str) -> Optional[Checked]:
    """``read_eval_cases``'s check of the JSON alone, so that another process can do it
    while this one validates the file before: ``None`` when the file is not an eval set
    object or has any problem (``read_eval_cases`` then checks it itself, and reports it)."""
    try:
        read = read_file(Path(path), what="an eval set")
        if read.data.lstrip()[:1] != b"{":
            return None
        spans = _checked_spans(read.data, path)
    except Exception:  # noqa: BLE001  (any problem is for read_eval_cases to find and report)
        return None
    return (read.sha256, spans) if spans else None


#: Cases of a file another process validated (``validate_part``): the warnings their checks
#: gave, their ids, and what ``note`` gave of each, all in file order.
Part = tuple[list[str], list[str], list[Any]]
#: Given the file's spans, the parts another process validates: where each begins (in file
#: order, the last running to the end), and how to get what it found at once (``None``: not
#: found yet, or it could not; those cases are validated here).
Split = Callable[[CaseSpans], list[tuple[int, Callable[[], Optional[Part]]]]]


def read_eval_cases(
    path: Path,
    each_case: Callable[[int, EvalCase], None],
    checked: Optional[Checked] = None,
    split: Optional[Split] = None,
    each_note: Optional[Callable[[int, str, Any], None]] = None,
) -> LoadedEvalSet:
    """``read_eval_file`` handing each case, in file order, to ``each_case(index, case)``
    instead of keeping them: the eval set returned is the file's header (its ``eval_cases``
    is empty), so a file of any size is never held as models all at once.

    The fast path checks the file as ``read_eval_file`` does, then validates the header and
    each case alone from its byte span (the same models as one validation of the whole
    file: ``EvalSet`` has no validator across cases). A file with any problem is read again
    whole by ``read_eval_file``, so that its error is the one that gives every detail;
    other formats are read whole and their cases handed out the same way. ``checked``: the
    file's JSON was checked already (``check_eval_file``), used when the bytes are the same.

    ``split``: another process may validate parts of the file (``validate_part``); the cases
    of a part it has validated when this process reaches it are handed to
    ``each_note(index, eval_id, note)`` instead, with its checks' warnings in their place.
    Any other part (not done yet, could not be done, or with an id repeating one before) is
    validated here, so every problem and warning is the one the file gives alone.
    """
    where = str(path)
    read = read_file(path, what="an eval set")
    spans: list[tuple[int, int]] = []
    if checked is not None and checked[0] == read.sha256 and _is_plain(path, read):
        spans = checked[1]
    elif read.data.lstrip()[:1] == b"{" and _is_plain(path, read):
        spans = _checked_spans(read.data, where)
    handed = 0
    if spans:
        header = _header(read.data, spans, where)
        if header is not None:
            found = CaseSpans(read.data, spans, read.start)
            parts = split(found) if split is not None and each_note is not None else []
            first = parts[0][0] if parts else len(spans)
            seen: set[str] = set()
            with gc_paused():
                for case in _cases(read.data, spans[:first], where, header.warnings, seen):
                    each_case(handed, case)
                    handed += 1
                for number, (start, taken) in enumerate(parts):
                    end = parts[number + 1][0] if number + 1 < len(parts) else len(spans)
                    if handed != start:
                        break
                    part = taken()
                    if (
                        part is not None
                        and each_note is not None
                        and len(part[1]) == len(part[2]) == end - start
                        and seen.isdisjoint(part[1])
                    ):
                        header.warnings.extend(part[0])
                        for index, (eval_id, note) in enumerate(
                            zip(part[1], part[2], strict=True), start=start
                        ):
                            each_note(index, eval_id, note)
                        seen.update(part[1])
                        handed = end
                        continue
                    for case in _cases(read.data, spans[start:end], where, header.warnings, seen, start):
                        each_case(handed, case)
                        handed += 1
            if handed == len(spans):
                header.sha256, header.case_spans = read.sha256, found
                header.source = path
                return header
    whole = read_eval_file(path)  # a file with a problem: its error, with every detail
    for index, case in enumerate(whole.eval_set.eval_cases[handed:], start=handed):
        each_case(index, case)
    whole.eval_set = whole.eval_set.model_copy(update={"eval_cases": []})
    return whole


def validate_part(
    path: str,
    offset: int,
    bounds: list[int],
    digests: bytes,
    start: int,
    note: Callable[[int, EvalCase], Any],
) -> Optional[Part]:
    """``read_eval_cases``'s validation of cases ``start`` on, for another process: the bytes
    from ``offset`` in the file, each case's span in them (``bounds``: begin and end by
    turns) and digest (``CaseSpans``), so that what is validated is the bytes the caller
    read. ``None`` when anything differs or any case has a problem (the caller then
    validates them itself and reports it), or when ``note`` raises."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read(bounds[-1] if bounds else 0)
        spans = list(zip(bounds[::2], bounds[1::2], strict=True))
        size = len(digests) // max(1, len(spans))
        for number, (begin, end) in enumerate(spans):
            if digest_of(data[begin:end]) != digests[size * number : size * (number + 1)]:
                return None
        warnings: list[str] = []
        ids: list[str] = []
        notes: list[Any] = []
        with gc_paused():
            for index, case in enumerate(_cases(data, spans, path, warnings, set(), start), start=start):
                ids.append(case.eval_id)
                notes.append(note(index, case))
    except Exception:  # noqa: BLE001  (any problem is for read_eval_cases to find and report)
        return None
    return (warnings, ids, notes) if len(ids) == len(spans) else None


def _checked_spans(data: bytes, where: str) -> list[tuple[int, int]]:
    """Each case's span, the file checked case by case (``check_elements``); ``[]`` when the
    file has any problem or is not an eval set object with cases (the whole path then reads it)."""
    with gc_paused():
        found = check_elements(data, source=where, what="an eval set", member="eval_cases", model=EvalSet)
    return found or []


def _is_plain(path: Path, read: FileBytes) -> bool:
    """Whether no installed data format claims the file (its cases are ADK's own)."""
    from ._formats import HEAD_BYTES, eval_set_in_format

    return eval_set_in_format(path, read.data[:HEAD_BYTES]) is None


def _header(raw: bytes, spans: list[tuple[int, int]], where: str) -> Optional[LoadedEvalSet]:
    """The eval set without its cases, checked (``None``: it needs the whole path)."""
    warnings: list[str] = []
    try:
        header = EvalSet.model_validate_json(raw[: spans[0][0]] + raw[spans[-1][1] :])
        _after_validation(header, where, warnings)
    except (ValidationError, DataError):
        return None
    return LoadedEvalSet(eval_set=header, source=None, format="evalset", warnings=warnings)


def _cases(
    raw: bytes, spans: list[tuple[int, int]], where: str, warnings: list[str], seen: set[str], first: int = 0
) -> Iterator[EvalCase]:
    """The case at each of ``spans`` of ``raw`` (the file's cases from number ``first`` on)
    validated and checked alone (``seen``: the ids before); stops at the first that needs
    the whole path."""
    for index, (begin, end) in enumerate(spans, start=first):
        try:
            case = EvalCase.model_validate_json(raw[begin:end])
            _check_case(case, index, where, warnings)
        except (ValidationError, DataError):
            return
        if case.eval_id in seen:
            return
        seen.add(case.eval_id)
        yield case


def _from_bytes(
    read: FileBytes, path: Path, where: str, initial_session: Optional[SessionInput], *, checked: bool
) -> LoadedEvalSet:
    raw = read.data
    spans: list[tuple[int, int]] = []
    if not checked:
        with gc_paused():
            parse_json(
                raw, source=where, what="an eval set", keep=False, model=EvalSet, spans=("eval_cases", spans)
            )
    if initial_session is None and raw.lstrip()[:1] == b"{":
        with gc_paused():
            try:
                eval_set = EvalSet.model_validate_json(raw)
            except ValidationError:
                eval_set = None
        if eval_set is not None:
            warnings: list[str] = []
            _after_validation(eval_set, where, warnings)
            check_unique_ids(eval_set, where)
            found = CaseSpans(raw, spans, read.start) if len(spans) == len(eval_set.eval_cases) else None
            return LoadedEvalSet(
                eval_set=eval_set, source=path, format="evalset", warnings=warnings, case_spans=found
            )
    with gc_paused():
        data = parse_json(raw, source=where, what="an eval set", model=EvalSet)
    return eval_set_from_data(data, source=path, initial_session=initial_session)


def eval_set_from_data(
    data: Any,
    *,
    source: Optional[Path] = None,
    warnings: Optional[list[str]] = None,
    initial_session: Optional[SessionInput] = None,
) -> LoadedEvalSet:
    """Validate parsed JSON as an eval set in any supported format."""
    warnings = [] if warnings is None else warnings
    where = str(source) if source is not None else "<eval set>"
    if isinstance(data, dict):
        if initial_session is not None:
            msg = (
                "an initial session file applies only to legacy list files; this file is an "
                "eval set whose cases carry their own 'session_input'"
            )
            raise DataError(msg, source=where)
        eval_set = _validate_eval_set(data, where, warnings)
        fmt = "evalset"
    elif isinstance(data, list):
        eval_set, fmt = _from_legacy(data, source, where, warnings, initial_session)
    else:
        msg = (
            f"the top level is a JSON {json_type(data)}; an eval file is an object "
            '{"eval_set_id": ..., "eval_cases": [...]} or a legacy list of turns or cases'
        )
        raise DataError(msg, source=where)
    check_unique_ids(eval_set, where)
    return LoadedEvalSet(eval_set=eval_set, source=source, format=fmt, warnings=warnings)


def _validate_eval_set(data: dict[str, Any], where: str, warnings: list[str]) -> EvalSet:
    camel = {"evalSetId": "eval_set_id", "evalCases": "eval_cases", "creationTimestamp": "creation_timestamp"}
    found = [k for k in camel if k in data and camel[k] not in data]
    if found:
        renames = ", ".join(f"{k!r} -> {camel[k]!r}" for k in found)
        msg = (
            f"the top level uses camelCase keys ({renames}); ADK reads only snake_case keys "
            "there (nested keys may be either). Rename them"
        )
        raise DataError(msg, source=where)
    try:
        with gc_paused():
            eval_set = EvalSet.model_validate(data)
    except ValidationError as exc:
        raise DataError(
            "not a valid eval set:\n" + describe_validation_error(exc, EvalSet), source=where
        ) from None
    _after_validation(eval_set, where, warnings)
    return eval_set


#: The case key under which a saved actual file (``--save-actual``) keeps a case the agent
#: could not run (``{"code": ..., "message": ...}``), so that re-scoring it reports the same
#: error. agenteval writes and reads it, so it is never an "unknown key".
AGENT_ERROR_KEY = "agenteval_agent_error"


def _after_validation(eval_set: EvalSet, where: str, warnings: list[str]) -> None:
    """Checks pydantic cannot express: keys given in both spellings, and unknown keys
    (kept, as ADK keeps case keys, but reported)."""
    snake = {to_camel(name): name for name in EvalSet.model_fields}
    for key in eval_set.model_extra or {}:
        if key in snake and key != snake[key]:
            msg = (
                f"{key!r} is given beside {snake[key]!r}; ADK reads only the snake_case key at the top "
                f"of an eval set, so {key!r} would be ignored. Keep one: {snake[key]!r}"
            )
            raise DataError(msg, source=where)
        warnings.append(f"{where}: unknown top-level key {key!r} kept but not used (ADK ignores it)")
    for index, case in enumerate(eval_set.eval_cases):
        _check_case(case, index, where, warnings)


def _check_case(case: EvalCase, index: int, where: str, warnings: list[str]) -> None:
    """``_after_validation``'s checks of one case (``eval_cases[index]``); a case with no
    unknown keys (almost every one) costs two attribute reads."""
    extra = case.__pydantic_extra__
    if extra:
        _check_spelt_twice(case, f"eval_cases[{index}]", where)
    session = case.session_input
    if session is not None and session.__pydantic_extra__:
        _check_spelt_twice(session, f"eval_cases[{index}].session_input", where)
    for key in extra or ():
        if key != AGENT_ERROR_KEY:
            warnings.append(f"{where}: eval_cases[{index}].{key}: unknown case key kept but not used")


def _check_spelt_twice(model: BaseModel, path: str, where: str) -> None:
    """A model that keeps unknown keys takes ``evalId`` and files ``eval_id`` as an extra
    when both are given; refuse that instead of keeping two values for one field."""
    for key in model.model_extra or {}:
        if key in type(model).model_fields:
            msg = f"{path}: {key!r} is given twice, as {key!r} and {to_camel(key)!r}; keep one spelling"
            raise DataError(msg, source=where)


def check_unique_ids(eval_set: EvalSet, where: str) -> None:
    seen: dict[str, int] = {}
    for index, case in enumerate(eval_set.eval_cases):
        if case.eval_id in seen:
            msg = (
                f"eval_cases[{index}].eval_id: duplicate id {case.eval_id!r} "
                f"(also eval_cases[{seen[case.eval_id]}]); every case needs its own eval_id"
            )
            raise DataError(msg, source=where)
        seen[case.eval_id] = index


def _from_legacy(
    data: list[Any],
    source: Optional[Path],
    where: str,
    warnings: list[str],
    initial_session: Optional[SessionInput],
) -> tuple[EvalSet, str]:
    if not data:
        msg = "the file is an empty list; expected an eval set object or a legacy list of turns"
        raise DataError(msg, source=where)
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            msg = f"[{index}]: a legacy list holds objects, got a JSON {json_type(item)}"
            raise DataError(msg, source=where)
    is_case = ["data" in item and "name" in item for item in data]
    is_turn = ["query" in item for item in data]
    if all(is_case):
        if initial_session is not None:
            msg = "an initial session file applies to legacy flat lists, not multi-case lists"
            raise DataError(msg, source=where)
        return _from_multi_case(data, source, where, warnings), "legacy-multi"
    if all(is_turn):
        stem = _stem(source)
        case = _legacy_case(stem, data, [], where, warnings)
        if initial_session is not None:
            case["session_input"] = initial_session.model_dump()
        eval_set = _validate_converted({"eval_set_id": stem, "name": stem, "eval_cases": [case]}, where)
        return eval_set, "legacy-flat"
    has_data = ["data" in item for item in data]
    if any(has_data) and any(is_turn):
        turn, case_index = is_turn.index(True), has_data.index(True)
        msg = (
            f"the list mixes the two legacy formats: [{turn}] is a turn (it has 'query') and "
            f"[{case_index}] is a case (it has 'data'); a file uses one format only"
        )
        raise DataError(msg, source=where)
    if any(has_data):
        first_bad = is_case.index(False)
        absent = [repr(k) for k in ("name", "data") if k not in data[first_bad]]
        msg = (
            f"[{first_bad}]: {' and '.join(absent)} {'are' if len(absent) > 1 else 'is'} missing; "
            "every element of a legacy multi-case list is "
            '{"name": <case id>, "data": [turns], "initial_session": {...}}'
        )
        raise DataError(msg, source=where)
    if any(is_turn):
        first_bad = is_turn.index(False)
        msg = f"[{first_bad}]: 'query' is missing; every turn of a legacy flat list has a 'query'"
        raise DataError(msg, source=where)
    keys = ", ".join(map(repr, list(data[0])[:8])) or "no keys"
    msg = (
        f"[0] has {'keys ' if data[0] else ''}{keys}. A top-level list is read as a legacy ADK file: "
        "either turns with a 'query' (flat format) or cases with 'name' and 'data' "
        "(multi-case format). This file is neither; it does not look like an ADK eval file"
    )
    raise DataError(msg, source=where)


def _validate_converted(data: dict[str, Any], where: str) -> EvalSet:
    try:
        return EvalSet.model_validate(data)
    except ValidationError as exc:  # a legacy turn with values of the wrong type
        raise DataError(
            "not a valid legacy eval file:\n" + describe_validation_error(exc, EvalSet), source=where
        ) from None


def _from_multi_case(
    data: list[dict[str, Any]], source: Optional[Path], where: str, warnings: list[str]
) -> EvalSet:
    cases = []
    for index, item in enumerate(data):
        for key in item:
            if key not in _MULTI_CASE_KEYS:
                warnings.append(
                    f"{where}: [{index}].{key}: not a key of the legacy multi-case format "
                    f"({', '.join(sorted(_MULTI_CASE_KEYS))}); ignored, as ADK does"
                )
        turns = item["data"]
        if not isinstance(turns, list):
            raise DataError(f"[{index}].data: expected a list of turns", source=where)
        case = _legacy_case(str(item["name"]), turns, [index, "data"], where, warnings)
        session = item.get("initial_session")
        if session:
            if not isinstance(session, dict):
                raise DataError(f"[{index}].initial_session: expected an object", source=where)
            case["session_input"] = {
                "app_name": session.get("app_name", ""),
                "user_id": session.get("user_id", ""),
                "state": session.get("state", {}),
            }
        cases.append(case)
    stem = _stem(source)
    return _validate_converted({"eval_set_id": stem, "name": stem, "eval_cases": cases}, where)


def _legacy_case(
    eval_id: str, turns: list[Any], loc: list[Any], where: str, warnings: list[str]
) -> dict[str, Any]:
    conversation = []
    for index, turn in enumerate(turns):
        path = json_path([*loc, index])
        if not isinstance(turn, dict) or "query" not in turn:
            raise DataError(f"{path}: a legacy turn is an object with a 'query'", source=where)
        for key in turn:
            if key not in _FLAT_TURN_KEYS | {"mock_tool_output"}:
                warnings.append(f"{where}: {path}.{key}: not a legacy turn key; ignored, as ADK does")
        for key, shape in (
            ("expected_tool_use", '{"tool_name": ..., "tool_input": {...}}'),
            ("expected_intermediate_agent_responses", '{"author": ..., "text": ...}'),
        ):
            if not isinstance(turn.get(key) or [], list):
                msg = f"{path}.{key}: expected a list of {shape}, got a JSON {json_type(turn[key])}"
                raise DataError(msg, source=where)
        tool_uses = []
        for call_index, call in enumerate(turn.get("expected_tool_use") or []):
            if not isinstance(call, dict) or "tool_name" not in call:
                expected = '{"tool_name": ..., "tool_input": {...}}'
                msg = f"{path}.expected_tool_use[{call_index}]: expected {expected}"
                raise DataError(msg, source=where)
            tool_uses.append({"name": call["tool_name"], "args": call.get("tool_input")})
        responses = []
        for resp_index, resp in enumerate(turn.get("expected_intermediate_agent_responses") or []):
            if not isinstance(resp, dict) or "author" not in resp:
                expected = '{"author": ..., "text": ...}'
                msg = f"{path}.expected_intermediate_agent_responses[{resp_index}]: expected {expected}"
                raise DataError(msg, source=where)
            responses.append((resp["author"], [{"text": resp.get("text")}]))
        conversation.append(
            {
                "invocation_id": f"{eval_id}-{index + 1}",
                "user_content": {"role": "user", "parts": [{"text": turn["query"]}]},
                "final_response": {"role": "model", "parts": [{"text": turn.get("reference")}]},
                "intermediate_data": {"tool_uses": tool_uses, "intermediate_responses": responses},
            }
        )
    return {"eval_id": eval_id, "conversation": conversation}
