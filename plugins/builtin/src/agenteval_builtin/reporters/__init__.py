"""Built-in reporters (entry-point group ``agenteval.reporters``): ``junit``, ``markdown``
and ``github``. Each reads a recorded run only (``agenteval.runs.RecordedRun``)."""
