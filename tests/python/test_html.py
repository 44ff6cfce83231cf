"""The HTML reports from Python: the pages `strata profile/report/analyze --html` write."""
import json
import re
import subprocess

import pytest

import strata


def page_data(html):
    """The report's data, inline in the page (docs/html-report.md)."""
    found = re.search(r'<script id="strata-data" type="application/json">(.*?)</script>', html,
                      re.S)
    assert found, "the page has no inline data"
    return json.loads(found.group(1))


def assert_self_contained(html):
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r'<(script|img|iframe)[^>]*\ssrc=', html), "loads a file"
    assert not re.search(r'<link[^>]*\shref=', html), "loads a style sheet"
    assert "http://" not in html.replace("http://www.w3.org", "")


def test_profile_html_page(tiny, tmp_path):
    p = strata.profile(tiny, iterations=3)
    p.save_html(tmp_path / "p.html")
    html = (tmp_path / "p.html").read_text()
    assert html == p.html()
    assert_self_contained(html)
    data = page_data(html)
    assert data["kind"] == "profile"
    assert data["model"] == tiny
    top = max((n for n in p.nodes if n["op_type"] != "scope"), key=lambda n: n["median_ms"])
    column = data["nodes"]["columns"].index("node")
    node_names = [row[column] for row in data["nodes"]["rows"]]
    assert top["name"] in node_names
    assert top["name"] in [e["name"] for e in data["timeline"]["events"]]


def test_profile_html_is_the_cli_page(cli, tiny, tmp_path):
    """A saved profile read back gives the page `strata report --html` writes, byte for byte."""
    strata.profile(tiny, iterations=2).save_json(tmp_path / "p.json")
    strata.Profile.load(tmp_path / "p.json").save_html(tmp_path / "python.html")
    done = subprocess.run([cli, "report", str(tmp_path / "p.json"), "--html",
                           str(tmp_path / "cli.html")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "python.html").read_bytes() == (tmp_path / "cli.html").read_bytes()


def test_analysis_html_page(cli, tiny, tmp_path):
    a = strata.analyze(tiny)
    a.save_html(tmp_path / "a.html")
    html = (tmp_path / "a.html").read_text()
    assert_self_contained(html)
    data = page_data(html)
    assert data["kind"] == "analysis"
    top = max(a["nodes"], key=lambda n: n.get("flops") or 0)
    assert top["name"] in json.dumps(data)
    # The same page as `strata analyze --html` but for the load and analysis times.
    done = subprocess.run([cli, "analyze", tiny, "--html", str(tmp_path / "cli.html")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    cli_data = page_data((tmp_path / "cli.html").read_text())
    for d in (data, cli_data):
        d["about"].pop("load_ms")
        d["about"].pop("analysis_ms")
    assert data == cli_data


def test_html_unwritable_path(tiny, tmp_path):
    with pytest.raises(strata.Error, match="no-such-dir"):
        strata.profile(tiny, iterations=1).save_html(tmp_path / "no-such-dir" / "p.html")
    with pytest.raises(strata.Error, match="no-such-dir"):
        strata.analyze(tiny).save_html(tmp_path / "no-such-dir" / "a.html")
