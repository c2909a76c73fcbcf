"""agenteval from OpenTelemetry traces.

* the ``otel`` data format (``agenteval.formats``): ``agenteval run EVALSET --actual
  TRACE.json`` reads OTLP/JSON (or JSONL, Tempo, Jaeger) GenAI and ADK spans, with OTLP log
  records beside them, as the agent's actual turns;
* ``agenteval lint-trace FILE`` (``agenteval.commands``): what a trace lacks for scoring;
* ``agenteval import-trace FILE -o NAME.evalset.json`` (``agenteval.commands``): a recorded
  trace as an eval set; one session at a time, ``OtelReader.recorded_sessions`` and
  ``OtelReader.session_case`` (what the viewer's authoring screen starts a case from);
* the ``http-traces`` agent adapter (``agenteval.agents``): a live HTTP agent's turns read from
  the spans it exports to a loopback OTLP receiver while it is evaluated.

See ``docs/traces.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._reader import OtelReader

__all__ = ["OtelReader", "__version__"]

__version__ = "0.12.0"


def __getattr__(name: str) -> Any:
    # Imported on first use: ``agenteval --help`` loads this package for its commands and
    # must not pay for the trace reader and the models it builds on.
    if name == "OtelReader":
        from ._reader import OtelReader

        return OtelReader
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
