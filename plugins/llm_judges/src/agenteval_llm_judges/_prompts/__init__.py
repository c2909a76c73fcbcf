"""The judge prompt texts, one module per criterion (agenteval's own wording).

Each module holds a ``SYSTEM`` instruction, a ``PROMPT`` (the user message that carries
the data blocks) with ``{{name}}`` placeholders, and the JSON schema of the answer. A
change to any text must come with a new ``PROMPT_VERSION`` in the criterion's module; the
SHA-256 of the texts is recorded in every result (``prompt_sha256``).
"""
