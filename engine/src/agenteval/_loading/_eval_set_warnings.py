"""What a run says about an eval file it accepts (warnings, never errors): what would
break in ``adk web``, and what makes a case's turns hard to tell apart."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .._terminal import visible
from ..models import EvalCase, EvalSet

__all__ = ["adk_web_name_warning", "eval_set_warnings"]

#: What ``adk web`` finds eval sets by: ``<eval_set_id>.evalset.json`` in the agent's folder.
ADK_WEB_SUFFIX = ".evalset.json"
_ADK_AGENT_MARKERS = ("__init__.py", "root_agent.yaml")


def eval_set_warnings(path: Path, eval_set: EvalSet) -> list[str]:
    """Every warning about ``eval_set``, read from ``path``."""
    found = [adk_web_name_warning(path, eval_set.eval_set_id)]
    found += [duplicate_invocation_ids(path, index, case) for index, case in enumerate(eval_set.eval_cases)]
    return [warning for warning in found if warning is not None]


def adk_web_name_warning(path: Path, eval_set_id: str) -> Optional[str]:
    """A warning when ``adk web`` would list the file under another id than its
    ``eval_set_id`` (it names an eval set by its file, ``<id>.evalset.json``, and running it
    then fails with ``NotFoundError``); ``None`` when they agree, when the file is not an
    ``*.evalset.json`` or not in an ADK agent's folder (``__init__.py`` or
    ``root_agent.yaml`` beside it): ``adk web`` lists neither."""
    if not path.name.endswith(ADK_WEB_SUFFIX) or not any(
        (path.parent / marker).is_file() for marker in _ADK_AGENT_MARKERS
    ):
        return None
    stem = path.name[: -len(ADK_WEB_SUFFIX)]
    if stem == eval_set_id:
        return None
    return (
        f"{visible(str(path))}: eval_set_id {visible(eval_set_id)!r} differs from the file's name: "
        f"adk web lists this eval set as {visible(stem)!r} and cannot run it (it finds an eval set by "
        f"its file, <eval_set_id>.evalset.json). Set eval_set_id to {visible(stem)!r} or rename the file "
        f"to {visible(eval_set_id + ADK_WEB_SUFFIX)!r}"
    )


def duplicate_invocation_ids(path: Path, index: int, case: EvalCase) -> Optional[str]:
    """A warning naming the case when two of its turns share an ``invocation_id`` (empty
    ids, which ADK's older files leave, are not compared)."""
    first: dict[str, int] = {}
    repeated: list[str] = []
    for turn, invocation in enumerate(case.conversation or ()):
        key = invocation.invocation_id
        if not key:
            continue
        if key in first:
            repeated.append(f"{visible(key)!r} (conversation[{first[key]}] and [{turn}])")
        else:
            first[key] = turn
    if not repeated:
        return None
    return (
        f"{visible(str(path))}: eval_cases[{index}] ({visible(case.eval_id)!r}): invocation_id "
        f"{', '.join(repeated)} is used by more than one turn; each turn's results, in the reports and in "
        "adk web, are told apart by it: give every turn its own id"
    )
