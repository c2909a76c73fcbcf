"""agenteval's LLM-as-judge criteria and judge-model providers (loaded through entry points)."""
