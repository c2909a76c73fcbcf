"""Judge-model providers (entry-point group ``agenteval.judge_models``)."""
