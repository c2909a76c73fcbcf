"""agenteval from OpenTelemetry traces.

* the ``otel`` data format (``agenteval.formats``): ``agenteval run EVALSET --actual
  TRACE.json`` reads OTLP/JSON (or JSONL, Tempo, Jaeger) GenAI and ADK spans, with OTLP log
  records beside them, as the agent's actual turns;
* ``agenteval lint-trace FILE`` (``agenteval.commands``): what a trace lacks for scoring;
* the ``http-traces`` agent adapter (``agenteval.agents``): a live HTTP agent's turns read from
  the spans it exports to a loopback OTLP receiver while it is evaluated.

See ``docs/traces.md``.
"""

from ._reader import OtelReader

__all__ = ["OtelReader", "__version__"]

__version__ = "0.3.0"
