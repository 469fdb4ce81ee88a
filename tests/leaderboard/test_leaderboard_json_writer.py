"""leaderboard.json's writer (tpugraphs_eval.leaderboard.json_writer) gives the bytes of the json module's indented
encoder, which is the reference: ``json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False)``
on the same values, for every kind of nesting and scalar the document can hold."""

from __future__ import annotations

import json
import math

import pytest

from tpugraphs_eval.leaderboard.json_writer import json_text

CASES = {
    "empty-object": {},
    "empty-list": [],
    "nested-empties": {"a": [], "b": {}, "c": [[]], "d": [{}]},
    "flat-object": {"z": 1.5, "a": None, "m": True, "k": False, "n": -3, "s": "x"},
    "flat-list": [1, 2.25, "two", None, [], {}],
    "deep": {"a": {"b": {"c": [1, {"d": [2, 3]}], "e": "f"}}, "g": [[1], [2, [3]]]},
    "floats": [1e300, -0.0, 5e-324, 0.1 + 0.2, 1e16, 123456789.0],
    "big-int": [2 ** 70, -(2 ** 64)],
    "strings": ["\n\t\"\\", "é\u2028\u2029", "\x00\x1f\x7f", "😀", "<script>", ""],
    "keys-sorted": {"b": 1, "a": {"d": 2, "c": 3}, "B": [], "é": 0, "": "empty key"},
    "tuple": {"t": (1, (2, 3))},
}


@pytest.mark.parametrize("value", CASES.values(), ids=CASES.keys())
def test_the_text_is_the_json_modules_indented_text(value):
    assert json_text(value) == json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"a": {"b": -math.inf}}, {"a": [1, {"b": math.nan}]}],
                         ids=["top", "in-a-flat-list", "in-a-flat-object", "deep"])
def test_nan_and_infinities_are_refused_as_allow_nan_false_does(value):
    with pytest.raises(ValueError):
        json.dumps(value, allow_nan=False)
    with pytest.raises(ValueError):
        json_text(value)


def test_a_value_json_cannot_hold_is_a_type_error():
    with pytest.raises(TypeError):
        json_text({"a": [object()]})
    with pytest.raises(TypeError):
        json_text({"a": {1: "x", "b": [2]}})
