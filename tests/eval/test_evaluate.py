"""The harness end to end: labelled queries through the real MCP server, in process, over stdio and
over HTTP, scored on the animals docs (rankings that follow from their words)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_support import ANIMAL_QUERIES
from registry_support import Registry

from docs_mcp.errors import ConfigError, DocsMcpError
from docs_mcp.eval import EvalOptions, evaluate
from docs_mcp.eval.report import RunReport

pytestmark = pytest.mark.timeout(120)


def _by_id(run: RunReport) -> dict[str, dict[str, float]]:
    return {result.query.id: dict(result.scores) for result in run.queries}


def test_sections_parts_pages_and_filters_are_scored_through_search_docs(animals_index: Path) -> None:
    report = evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=animals_index, ks=(1, 2)))
    run = report.primary
    scores = _by_id(run)
    # Gold ids written without the page title match the chunks under it, at rank 1.
    assert scores["zebra-crossing"]["mrr@1"] == 1.0
    # The split section is credited once: its second part at rank 2 is not a second relevant hit.
    assert scores["quokka"]["recall@1"] == 1.0 and scores["quokka"]["precision@2"] == 0.5
    assert scores["otter-go"]["hit@1"] == 1.0
    # Pages: alpha.md's two zebra sections fill the first page of hits, so the cursor is followed
    # to reach beta.md; beta (grade 2) at rank 2 costs nDCG.
    pages = next(r for r in run.queries if r.query.id == "zebra-pages")
    assert pages.units == ("guide/alpha.md", "guide/beta.md")
    assert len(pages.latency_ms) == 2
    assert scores["zebra-pages"]["recall@2"] == 1.0
    assert scores["zebra-pages"]["ndcg@2"] == pytest.approx(0.8597, abs=1e-4)
    assert set(run.categories()) == {"sections", "parts", "pages", "filters"}
    assert run.modes == ["fulltext"] and run.latency()["calls"] == 5


def test_exact_matching_credits_only_the_ids_as_written(animals_index: Path) -> None:
    run = evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=animals_index, ks=(3,), match="exact")).primary
    scores = _by_id(run)
    assert scores["zebra-crossing"]["recall@3"] == 0.0 and scores["quokka"]["recall@3"] == 0.0
    assert scores["otter-go"]["recall@3"] == 1.0


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_transport_ranks_and_scores_as_in_process(animals_index: Path, transport: str) -> None:
    options = EvalOptions(queries=ANIMAL_QUERIES, index=animals_index, ks=(1, 3))
    inproc = evaluate(options).primary
    remote = evaluate(EvalOptions(**{**options.__dict__, "transport": transport})).primary
    assert remote.transport == transport
    assert [r.units for r in remote.queries] == [r.units for r in inproc.queries]
    assert remote.metrics == inproc.metrics


def test_a_baseline_shows_deltas_and_the_queries_that_moved(animals_index: Path, tmp_path: Path) -> None:
    before = evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=animals_index, ks=(3,), match="exact"))
    baseline = tmp_path / "before.json"
    baseline.write_text(json.dumps(before.to_dict()))
    after = evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=animals_index, ks=(3,), baseline=baseline))
    comparison = after.primary.baseline
    assert comparison is not None
    assert comparison.deltas["recall@3"] == (0.5, 1.0)
    assert sorted(change.id for change in comparison.better) == ["quokka", "zebra-crossing"]
    assert comparison.worse == [] and comparison.only_now == []
    assert after.to_dict()["baseline"]["delta"]["recall@3"] == 0.5


def test_filters_the_index_lacks_are_all_listed_before_any_search(
    animals_index: Path, tmp_path: Path
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": "a", "query": "otter", "relevant": ["go/otter.md"], "filters": {"language": "rust"}}\n'
        '{"id": "b", "query": "otter", "relevant": ["go/otter.md"], "filters": {"planet": "mars"}}\n'
    )
    with pytest.raises(ConfigError) as raised:
        evaluate(EvalOptions(queries=queries, index=animals_index))
    message = str(raised.value)
    assert "query 'a': language='rust' is not in the index; values: go, python" in message
    assert "query 'b': 'planet' is not a facet of this index" in message


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"index": None}, "name the index once"),
        ({"build": Path("docs")}, "name the index once"),
        ({"compare": ("none", "hash")}, "--compare builds one index per provider"),
        ({"mode": "vector", "transport": "stdio"}, "--mode needs --transport inproc"),
        ({"ks": (0, 3)}, "--k takes whole numbers"),
        ({"transport": "carrier-pigeon"}, "unknown transport"),
        ({"match": "fuzzy"}, "--match must be one of"),
    ],
)
def test_contradictory_options_are_refused_before_anything_runs(
    animals_index: Path, changes: dict[str, object], error: str
) -> None:
    options = {"queries": ANIMAL_QUERIES, "index": animals_index, **changes}
    with pytest.raises(ConfigError, match=error):
        evaluate(EvalOptions(**options))  # type: ignore[arg-type]


def test_a_missing_index_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no index folder at"):
        evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=tmp_path / "nowhere"))


def test_build_compares_providers_side_by_side_and_mode_forces_one_leg(animals_docs: Path) -> None:
    report = evaluate(EvalOptions(queries=ANIMAL_QUERIES, build=animals_docs, compare=("none", "hash")))
    assert [run.label for run in report.runs] == ["none", "hash"]
    assert [run.modes for run in report.runs] == [["fulltext"], ["hybrid"]]
    assert [run["label"] for run in report.to_dict()["runs"]] == ["none", "hash"]
    vector = evaluate(
        EvalOptions(queries=ANIMAL_QUERIES, build=animals_docs, compare=("hash",), mode="vector")
    )
    assert vector.primary.modes == ["vector"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_server_that_cannot_start_reports_what_it_said(tmp_path: Path, transport: str) -> None:
    not_an_index = tmp_path / "empty"
    not_an_index.mkdir()
    with pytest.raises(
        DocsMcpError, match=f"the {transport} server did not serve the index: .*docs-mcp: error"
    ):
        evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=not_an_index, transport=transport))


def test_bad_filters_over_stdio_are_the_same_clear_error(animals_index: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"id": "a", "query": "otter", "relevant": ["go/otter.md"], "filters": {"language": "rust"}}\n'
    )
    with pytest.raises(ConfigError, match="language='rust' is not in the index"):
        evaluate(EvalOptions(queries=queries, index=animals_index, transport="stdio"))


def test_a_running_server_is_scored_at_its_url(animals_index: Path) -> None:
    from server.server_support import start_http_server, stop

    server = start_http_server(animals_index, deadline=120)
    try:
        report = evaluate(EvalOptions(queries=ANIMAL_QUERIES, transport=server.url, ks=(1,)))
    finally:
        stop(server)
    assert report.primary.transport == server.url and report.primary.index == server.url
    assert report.metrics["hit@1"] == 1.0


def test_a_url_nothing_answers_at_is_a_clear_error() -> None:
    import socket

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/mcp"  # bound, never listening
        with pytest.raises(DocsMcpError, match=f"cannot reach an MCP server at {url}"):
            evaluate(EvalOptions(queries=ANIMAL_QUERIES, transport=url))


def test_an_index_artifact_is_pulled_and_scored(
    animals_index: Path, registry: Registry, tmp_path: Path
) -> None:
    from docs_mcp.artifact import publish

    reference = registry.ref("eval/animals", "v1")
    publish(animals_index, reference, cache_dir=tmp_path / "cache")
    from_registry = evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=f"oci://{reference}", ks=(1, 3)))
    from_folder = evaluate(EvalOptions(queries=ANIMAL_QUERIES, index=animals_index, ks=(1, 3)))
    assert from_registry.primary.index != str(animals_index)
    assert from_registry.primary.label == f"oci://{reference}"
    assert [r.units for r in from_registry.primary.queries] == [r.units for r in from_folder.primary.queries]
    assert from_registry.metrics == from_folder.metrics
