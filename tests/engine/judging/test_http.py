"""``judging/_http.py``: the ``Retry-After`` reading every provider shares."""

from __future__ import annotations

import email.utils
import time

import pytest
from agenteval.plugins import retry_after_seconds


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        (None, None),
        ({}, None),
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "2.5"}, 2.5),  # any case, also in a plain dict
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),  # OpenAI's milliseconds first
        ({"retry-after-ms": "soon", "retry-after": "4"}, 4.0),
        ({"retry-after": "-5"}, 0.0),
        ({"retry-after": "tomorrow-ish"}, None),
    ],
)
def test_values(headers, seconds):
    assert retry_after_seconds(headers) == seconds


def test_an_http_date_counts_from_now():
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= retry_after_seconds({"Retry-After": later}) <= 31
    earlier = email.utils.formatdate(time.time() - 30, usegmt=True)
    assert retry_after_seconds({"retry-after": earlier}) == 0.0
