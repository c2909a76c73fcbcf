"""Statistics for verdicts you can trust: pure functions over plain numbers (private: the
engine's verdicts, ``agenteval compare`` and calibration call them).

* intervals (``Interval``): ``clopper_pearson`` for 0/1 units, ``betting_interval`` for
  bounded scores at small n, ``bca_interval`` from n = 20, ``manski_interval`` for missing
  scores, and ``bounded_interval``, which picks among them;
* ``derive_seed(run_id, case_id, criterion)``: resampling that re-renders identically;
* tri-state verdicts (``VerdictResult``): ``case_verdict``, ``combine_verdicts``, and per
  eval set ``set_verdict`` (its verdict with the error it controls: ``SET_VERDICT_RULES``)
  and ``variance_components``;
* paired run-vs-run comparison: ``compare_runs`` (``Comparison``), ``compare_case_runs``
  (per-case flags, attainable from ``flag_min_runs`` runs a side), ``sign_flip_test``,
  ``two_sample_test``, ``holm``, ``benjamini_hochberg``, ``minimum_detectable_effect``;
* judge samples' agreement: ``judge_agreement``, ``krippendorff_alpha`` (when to stop
  sampling is the judge plugin's);
* a judge against human labels: ``judge_calibration`` (``JudgeCalibration``: κ with a
  BCa interval, accuracy, sensitivity, specificity, base rate, rank correlation).

Every result is a frozen dataclass recording method, level, n and (for resampling) seed.
numpy and scipy are imported inside the functions that need them, never here.
docs/statistics.md explains each number.
"""

from __future__ import annotations

from ._calibration import JudgeCalibration, judge_calibration
from ._compare import (
    CaseChange,
    ChangeStatus,
    Comparison,
    CriterionComparison,
    compare_case_runs,
    compare_runs,
    flag_min_runs,
    minimum_detectable_effect,
    smallest_case_p,
)
from ._family import SET_VERDICT_RULES, SetVerdict, set_verdict
from ._interval import Interval
from ._intervals import (
    BCA_MIN_N,
    bca_interval,
    betting_interval,
    bounded_interval,
    clopper_pearson,
    manski_interval,
)
from ._judges import (
    JudgeAgreement,
    judge_agreement,
    krippendorff_alpha,
)
from ._multiplicity import benjamini_hochberg, holm
from ._permutation import PermutationTest, sign_flip_test, two_sample_test
from ._seed import derive_seed
from ._summary import VarianceComponents, mean_of, variance_components
from ._verdict import Basis, Verdict, VerdictResult, case_verdict, combine_verdicts

__all__ = [
    "BCA_MIN_N",
    "SET_VERDICT_RULES",
    "Basis",
    "CaseChange",
    "ChangeStatus",
    "Comparison",
    "CriterionComparison",
    "Interval",
    "JudgeAgreement",
    "JudgeCalibration",
    "PermutationTest",
    "SetVerdict",
    "VarianceComponents",
    "Verdict",
    "VerdictResult",
    "bca_interval",
    "benjamini_hochberg",
    "betting_interval",
    "bounded_interval",
    "case_verdict",
    "clopper_pearson",
    "combine_verdicts",
    "compare_case_runs",
    "compare_runs",
    "derive_seed",
    "flag_min_runs",
    "holm",
    "judge_agreement",
    "judge_calibration",
    "krippendorff_alpha",
    "manski_interval",
    "mean_of",
    "minimum_detectable_effect",
    "set_verdict",
    "sign_flip_test",
    "smallest_case_p",
    "two_sample_test",
    "variance_components",
]
