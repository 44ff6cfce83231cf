import json

import strata


def test_profile_summary_and_nodes(tiny, tmp_path):
    p = strata.profile(tiny, iterations=3, threads=1)
    assert p.summary["iterations"] == 3
    assert p.summary["median_ms"] > 0
    model = strata.Model(tiny)
    assert 0 < len(p.nodes) <= model.node_count
    for node in p.nodes:  # flat records: every value a plain scalar or string
        assert all(isinstance(v, (str, int, float, bool)) for v in node.values())
        assert node["median_ms"] >= 0
    assert abs(sum(n["share_pct"] for n in p.nodes) - 100) < 1e-6
    assert any(n["op_type"] == "Conv" or n["op_type"].startswith("Fused") for n in p.nodes)
    assert "median" in str(p)


def test_profile_files_round_trip(tiny, tmp_path):
    p = strata.profile(tiny, iterations=2)
    p.save_json(tmp_path / "p.json")
    p.save_trace(tmp_path / "t.json")
    again = strata.Profile.load(tmp_path / "p.json")
    assert [n["name"] for n in again.nodes] == [n["name"] for n in p.nodes]
    assert again.summary["median_ms"] == p.summary["median_ms"]
    trace = json.loads((tmp_path / "t.json").read_text())
    names = {e.get("name") for e in trace["traceEvents"]}
    assert p.nodes[0]["name"] in names
    assert p.json["schema_version"] == 1


def test_profile_file_readable_by_the_cli(cli, tiny, tmp_path):
    import subprocess

    strata.profile(tiny, iterations=2).save_json(tmp_path / "p.json")
    done = subprocess.run([cli, "report", str(tmp_path / "p.json")], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr


def test_profile_bad_options(tiny, tmp_path):
    import pytest

    with pytest.raises(strata.Error, match="iterations"):
        strata.profile(tiny, iterations=0)
    p = strata.profile(tiny, iterations=1)
    with pytest.raises(strata.Error, match="no-such-dir"):
        p.save_json(tmp_path / "no-such-dir" / "p.json")
