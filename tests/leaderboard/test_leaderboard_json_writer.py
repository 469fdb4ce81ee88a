"""leaderboard.json's layout (tpugraphs_eval.leaderboard.json_writer; docs/leaderboard.md, "Outputs"): the top two
levels indented one space per level, each deeper value on one line.

Where expected values come from: texts written out by hand for small documents, and the json module itself (each
line two levels down must be ``json.dumps(value, sort_keys=True, ensure_ascii=False)`` of that value; the whole text
must parse back to the document)."""

from __future__ import annotations

import json
import math

import pytest

from tpugraphs_eval.leaderboard.json_writer import json_text


def test_the_top_two_levels_are_indented_and_deeper_values_are_on_one_line():
    document = {"b": [{"z": 1, "a": [1, 2]}, "x", {}], "a": {"k": {"y": None, "x": True}, "j": 0.5}, "c": []}
    assert json_text(document) == (
        '{\n'
        ' "a": {\n'
        '  "j": 0.5,\n'
        '  "k": {"x": true, "y": null}\n'
        ' },\n'
        ' "b": [\n'
        '  {"a": [1, 2], "z": 1},\n'
        '  "x",\n'
        '  {}\n'
        ' ],\n'
        ' "c": []\n'
        '}\n')


CASES = {
    "empty-object": {},
    "empty-list": [],
    "scalar": 1.5,
    "nested-empties": {"a": [], "b": {}, "c": [[]], "d": [{}]},
    "floats": {"f": [1e300, -0.0, 5e-324, 0.1 + 0.2, 1e16, 123456789.0]},
    "big-int": {"i": [2 ** 70, -(2 ** 64)]},
    "strings": {"s": ["\n\t\"\\", "é\u2028\u2029", "\x00\x1f\x7f", "😀", "<script>", ""]},
    "keys-sorted": {"b": 1, "a": {"d": 2, "c": {"f": 3, "e": 4}}, "B": [], "é": 0, "": "empty key"},
    "deep": {"a": [{"b": {"c": [1, {"d": [2, 3]}]}}]},
}


@pytest.mark.parametrize("value", CASES.values(), ids=CASES.keys())
def test_the_text_parses_back_and_each_deep_line_is_the_json_modules_compact_text(value):
    text = json_text(value)
    assert text.endswith("\n") and json.loads(text) == value
    if isinstance(value, dict):  # the lines of the top two levels, indented as indent=1 would
        for key, item in value.items():
            if isinstance(item, dict) and item:
                for inner_key, inner in item.items():
                    line = f"  {json.dumps(inner_key, ensure_ascii=False)}: {json.dumps(inner, sort_keys=True, ensure_ascii=False)}"
                    assert line in text.split("\n") or line + "," in text.split("\n")
            elif isinstance(item, list) and item:
                for inner in item:
                    line = "  " + json.dumps(inner, sort_keys=True, ensure_ascii=False)
                    assert line in text.split("\n") or line + "," in text.split("\n")


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"a": {"b": -math.inf}}, {"a": [1, {"b": math.nan}]}],
                         ids=["top", "in-a-list", "deep-object", "deep"])
def test_nan_and_infinities_are_refused_as_allow_nan_false_does(value):
    with pytest.raises(ValueError):
        json.dumps(value, allow_nan=False)
    with pytest.raises(ValueError):
        json_text(value)


def test_a_value_json_cannot_hold_is_a_type_error():
    with pytest.raises(TypeError):
        json_text({"a": [object()]})
    with pytest.raises(TypeError):
        json_text({1: "x", "b": [2]})
