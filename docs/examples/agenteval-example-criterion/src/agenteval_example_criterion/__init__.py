"""An example third-party criterion for agenteval: ``example_response_length``.

The criterion is registered through the ``agenteval.criteria`` entry point in
``pyproject.toml``; agenteval imports ``agenteval_example_criterion.length`` only when a
run asks for ``example_response_length``.
"""

__version__ = "0.1.0"
