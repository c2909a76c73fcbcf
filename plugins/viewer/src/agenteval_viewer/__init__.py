"""agenteval's local viewer (``agenteval view``) and single-file HTML report
(``agenteval report``, the ``html`` reporter), both built from recorded run folders."""

__version__ = "0.8.4"
