import json
import subprocess

import pytest

import strata


def test_analyze_matches_the_cli_json(cli, tiny, tmp_path):
    a = strata.analyze(tiny)
    subprocess.run([cli, "analyze", tiny, "--json", str(tmp_path / "a.json")], check=True,
                   capture_output=True)
    expected = json.loads((tmp_path / "a.json").read_text())
    assert a["totals"] == expected["totals"]
    assert [n["name"] for n in a["nodes"]] == [n["name"] for n in expected["nodes"]]
    assert a["totals"]["flops"] > 0
    assert "FLOPs" in str(a)


def test_analyze_bad_dim(tiny):
    with pytest.raises(strata.Error, match="N"):
        strata.analyze(tiny, dims={"N": -1})


def test_compare_against_reference_kernels_agrees(tiny):
    c = strata.compare(tiny, against="reference")
    assert c["agree"] and c["first_divergent_node"] is None
    assert len(c["values"]) > 1 and all(v["ok"] for v in c["values"])
    assert "first divergent node" in c["report"] or "agree" in c["report"]


def test_compare_dumps_from_the_cli(cli, tiny, tmp_path):
    for d in ("a", "b"):
        subprocess.run([cli, "run", tiny, "--seed", "3", "--dump-all", str(tmp_path / d), "-q"],
                       check=True, capture_output=True)
    c = strata.compare(tmp_path / "a", tmp_path / "b")
    assert c["agree"] and c["out_of_tolerance"] == 0
    with pytest.raises(strata.Error):
        strata.compare(tmp_path / "a", tmp_path / "missing")
    with pytest.raises(strata.Error, match="against"):
        strata.compare(tiny, against="sideways")
