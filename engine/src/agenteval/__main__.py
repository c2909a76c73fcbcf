"""``python -m agenteval``."""

from .cli import main

main()
