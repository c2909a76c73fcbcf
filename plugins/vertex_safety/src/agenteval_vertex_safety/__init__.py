"""agenteval's ``safety_v1`` criterion, scored by the Vertex AI Gen AI evaluation service.

Nothing here imports google-cloud-aiplatform at import time: the SDK is imported when the
first call is made.
"""

__version__ = "0.3.1"

__all__ = ["__version__"]
