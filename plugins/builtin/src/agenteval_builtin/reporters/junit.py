"""``junit``: ``agenteval.junit.xml`` for CI systems (GitLab, Jenkins, GitHub actions).

One ``<testsuite>`` per eval set (its properties: engine version, run id, each criterion's
version, threshold, mean and point pass rate), one ``<testcase>`` per case with the eval
file and the line that defines the case. FAILED is ``<failure>`` (type: the first failing
criterion; a bounded body with every criterion's line), ERRORED is ``<error>`` (type: the
reason code), NOT_EVALUATED is ``<skipped>`` only when the criterion does not apply to the
case (e.g. a scenario without expected turns), otherwise ``<error>``, so that nothing
unexplained looks neutral. A case whose criteria called a judge carries its judge calls
and tokens (as the providers reported them) as ``<testcase>`` properties (``judge.calls``,
``judge.cache_hits``, ``judge.input_tokens``, ``judge.output_tokens``), and its suite each
criterion's sum over the suite's cases (``criterion.NAME.judge_input_tokens`` / ``_output_tokens``).
Characters XML 1.0 forbids are removed; text is escaped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from agenteval import Status
from agenteval.plugins import ReportContext, Reporter, case_lines

from ._common import CaseView, cases_of, clip, first_problem

__all__ = ["JUnitReporter"]

#: NOT_EVALUATED reason codes that mean "this criterion does not apply to this case".
NOT_APPLICABLE = {
    "no_expected_invocations",
    "no_rubrics",
    "no_reference",
    "no_conversation_scenario",
    "no_text_to_check",
    "not_applicable",
}
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_BODY_LIMIT = 2000


def _xml(text: object) -> str:
    return _ILLEGAL.sub("", str(text))


def _score(value: object) -> str:
    return "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def _body(view: CaseView) -> str:
    lines = []
    for result in view.result.criteria:
        line = (
            f"{result.criterion}@{result.plugin.version} {result.status.value} "
            f"{_score(result.score)}/{_score(result.threshold)}"
        )
        if not result.status.ok and result.reason:
            line += f" {clip(result.reason, 300)}"
        lines.append(line)
    error = view.agent_error
    if error is not None:
        lines.append(f"agent error [{error[0]}]: {clip(error[1], 400)}")
    text = "\n".join(lines)
    return text if len(text) <= _BODY_LIMIT else text[: _BODY_LIMIT - 1] + "…"


def _judge_properties(testcase: ET.Element, view: CaseView, by_criterion: dict[str, list[int]]) -> None:
    """The case's judge calls and tokens as its properties; each criterion's tokens added to
    ``by_criterion`` (its suite's sums)."""
    judge = view.result.judge
    if judge is None:
        return
    properties = ET.SubElement(testcase, "properties")
    for name in ("calls", "cache_hits", "input_tokens", "output_tokens"):
        ET.SubElement(properties, "property", name=f"judge.{name}", value=str(getattr(judge, name)))
    for result in view.result.criteria:
        if result.judge is not None:
            sums = by_criterion.setdefault(result.criterion, [0, 0])
            sums[0] += result.judge.input_tokens
            sums[1] += result.judge.output_tokens


class JUnitReporter(Reporter):
    description = "agenteval.junit.xml: one testsuite per eval set, one testcase per case (file and line)"

    def write(self, context: ReportContext) -> list[Path]:
        run = context.run
        root = ET.Element("testsuites", name=_xml(f"agenteval {run.run_id}"))
        suites: dict[int, ET.Element] = {}
        totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        per_suite: dict[int, dict[str, float]] = {}
        lines_by_file: dict[str, dict[str, int]] = {}
        judged: dict[int, dict[str, list[int]]] = {}  # suite -> criterion -> [input, output] tokens
        for view in cases_of(run):
            entry = view.entry
            suite = suites.get(entry.index)
            if suite is None:
                suite = suites[entry.index] = ET.SubElement(root, "testsuite", name=_xml(entry.eval_set_id))
                properties = ET.SubElement(suite, "properties")
                for name, value in (
                    ("agenteval.version", run.manifest.engine_version),
                    ("run_id", run.run_id),
                ):
                    ET.SubElement(properties, "property", name=name, value=_xml(value))
                for criterion in entry.criteria:
                    ET.SubElement(
                        properties,
                        "property",
                        name=_xml(f"criterion.{criterion.name}.version"),
                        value=_xml(f"{criterion.distribution} {criterion.version}"),
                    )
                    if criterion.threshold is not None:
                        ET.SubElement(
                            properties,
                            "property",
                            name=_xml(f"criterion.{criterion.name}.threshold"),
                            value=str(criterion.threshold),
                        )
                per_suite[entry.index] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
            if entry.path and entry.path not in lines_by_file:
                lines_by_file[entry.path] = case_lines(entry.path)
            attributes = {"classname": _xml(entry.eval_set_id), "name": _xml(view.result.eval_id)}
            if entry.path:
                attributes["file"] = _xml(entry.path)
                line = lines_by_file[entry.path].get(view.result.eval_id)
                if line is not None:
                    attributes["line"] = str(line)
            attributes["time"] = f"{view.duration:.3f}"
            testcase = ET.SubElement(suite, "testcase", attributes)
            _judge_properties(testcase, view, judged.setdefault(entry.index, {}))
            counts = per_suite[entry.index]
            counts["tests"] += 1
            counts["time"] += view.duration
            status = view.result.status
            problem = first_problem(view.result)
            if status is Status.FAILED and problem is not None:
                failing = [r for r in view.result.criteria if r.status is Status.FAILED]
                more = f" (+{len(failing) - 1} more)" if len(failing) > 1 else ""
                message = f"{problem.criterion} {_score(problem.score)} < {_score(problem.threshold)}{more}"
                element = ET.SubElement(
                    testcase, "failure", type=_xml(problem.criterion), message=_xml(message)
                )
                element.text = _xml(_body(view))
                counts["failures"] += 1
            elif (
                status is Status.NOT_EVALUATED
                and problem is not None
                and problem.reason_code in NOT_APPLICABLE
            ):
                ET.SubElement(testcase, "skipped", message=_xml(clip(problem.reason, 500)))
                counts["skipped"] += 1
            elif status in (Status.ERRORED, Status.NOT_EVALUATED) and problem is not None:
                element = ET.SubElement(
                    testcase,
                    "error",
                    type=_xml(problem.reason_code or status.value.lower()),
                    message=_xml(clip(problem.reason, 500)),
                )
                element.text = _xml(_body(view))
                counts["errors"] += 1
        for index, suite in suites.items():
            properties = suite.find("properties")
            for name, (inputs, outputs) in judged.get(index, {}).items():
                for unit, tokens in (("input", inputs), ("output", outputs)):
                    ET.SubElement(
                        properties,  # type: ignore[arg-type]  # every suite is made with its properties
                        "property",
                        name=_xml(f"criterion.{name}.judge_{unit}_tokens"),
                        value=str(tokens),
                    )
            counts = per_suite[index]
            for key in ("tests", "failures", "errors", "skipped"):
                suite.set(key, str(int(counts[key])))
                totals[key] += counts[key]
            suite.set("time", f"{counts['time']:.3f}")
            totals["time"] += counts["time"]
        for key in ("tests", "failures", "errors", "skipped"):
            root.set(key, str(int(totals[key])))
        root.set("time", f"{totals['time']:.3f}")
        target = context.folder / "agenteval.junit.xml"
        ET.ElementTree(root).write(target, encoding="utf-8", xml_declaration=True)
        return [target]
