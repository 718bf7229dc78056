"""Prompt templates (``*.template.md``) in a docs folder: found by the walk, checked by ``validate`` with
the file and line of each problem, never indexed as docs, stored in the index manifest by ``build``."""

from __future__ import annotations

from pathlib import Path

from docs_mcp.cli.main import main
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.store.index_manifest import IndexManifest, read_manifest
from testkit.index_fixtures import write_docs

GOOD = (
    "---\n"
    "name: answer-with-citations\n"
    "description: Answer a question from these docs, citing each section used\n"
    "arguments:\n"
    "  - name: question\n"
    "    description: What the user asks\n"
    "    required: true\n"
    "  - name: language\n"
    "    description: The SDK language, if any\n"
    "---\n"
    "\n"
    "Answer {{question}} from the docs only (language: {{ language }}).\n"
    "Cite each section by its chunk_id.\n"
)


def _findings(docs: Path) -> list[tuple[str, int, str, str]]:
    return [
        (f.path, f.line, f.severity, f.message)
        for f in validate(docs).findings
        if f.rule == "prompt-template"
    ]


def test_a_good_template_is_read_with_its_arguments_and_not_indexed(tmp_path: Path) -> None:
    docs = write_docs(
        tmp_path / "docs", {"guide.md": "# Guide\n\n## Start\n\nText.\n", "prompts/ask.template.md": GOOD}
    )
    corpus = load_corpus(docs)
    assert [file.path for file in corpus.files] == ["guide.md"], "a template is not a doc"
    assert _findings(docs) == []
    (prompt,) = corpus.prompts
    assert prompt.name == "answer-with-citations" and prompt.file == "prompts/ask.template.md"
    assert [(a.name, a.required) for a in prompt.arguments] == [("question", True), ("language", False)]
    assert prompt.body.startswith("Answer {{question}}")
    assert prompt.fill({"question": "how do retries work?"}) == (
        "Answer how do retries work? from the docs only (language: ).\nCite each section by its chunk_id."
    )


def test_validate_reports_each_problem_with_its_file_and_line(tmp_path: Path) -> None:
    docs = write_docs(
        tmp_path / "docs",
        {
            "guide.md": "# Guide\n\nText.\n",
            "a.template.md": GOOD,
            "b.template.md": GOOD.replace("Cite each", "Also {{missing}}.\nCite each"),  # line 13
            "c.template.md": "No front matter at all {{x}}\n",
            "d.template.md": "---\nname: [unclosed\n---\nText\n",
            "e.template.md": "---\nname: Bad Name\ndescription: ''\narguments: nope\n---\nText\n",
            "f.template.md": (
                "---\nname: twice\ndescription: d\narguments:\n  - name: a\n  - name: a\n---\n{{a}}\n"
            ),
            "g.template.md": GOOD.replace(
                "name: answer-with-citations", "name: answer-with-citations\nextra: 1"
            ),
        },
    )
    found = _findings(docs)
    by_file = {
        path: [(line, severity, message) for p, line, severity, message in found if p == path]
        for path, *_ in found
    }
    assert any(
        line == 13 and "{{missing}} names no argument" in m for line, _s, m in by_file["b.template.md"]
    )
    assert (
        by_file["c.template.md"][0][:2] == (1, "error")
        and "starts with front matter" in by_file["c.template.md"][0][2]
    )
    assert "not valid YAML" in by_file["d.template.md"][0][2]
    e = by_file["e.template.md"]
    assert (2, "error") in [(line, s) for line, s, _m in e] and any(
        "description must be" in m for *_x, m in e
    )
    assert any(line == 4 and "arguments must be a list" in m for line, _s, m in e)
    assert any("declared twice" in m for *_x, m in by_file["f.template.md"])
    # g repeats a's name: the second file is reported; its unknown key is a warning on its own line.
    g = by_file["g.template.md"]
    assert (3, "warning") in [(line, s) for line, s, _m in g]
    assert any("already used by a.template.md" in m for *_x, m in g)
    assert main(["validate", "--docs-dir", str(docs)]) == 1
    assert [p.file for p in load_corpus(docs).prompts] == ["a.template.md"], "only valid, unique templates"


def test_build_stores_the_templates_in_the_manifest_and_an_index_without_them_reads_as_before(
    tmp_path: Path,
) -> None:
    docs = write_docs(
        tmp_path / "docs", {"guide.md": "# Guide\n\n## Start\n\nText.\n", "ask.template.md": GOOD}
    )
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    manifest = read_manifest(tmp_path / "out")
    assert [p.name for p in manifest.prompts] == ["answer-with-citations"]
    assert manifest.chunk_count == 1
    assert IndexManifest.from_json(manifest.to_json()) == manifest
    (docs / "ask.template.md").unlink()
    build(BuildOptions(docs_dir=docs, out=tmp_path / "plain"))
    assert '"prompts"' not in (tmp_path / "plain" / "docs-mcp-index.json").read_text(), (
        "only when there are any"
    )
    assert read_manifest(tmp_path / "plain").prompts == ()


def test_undeclared_placeholders_are_counted_in_linear_time_with_a_bounded_report(tmp_path: Path) -> None:
    """250,000 undeclared ``{{name}}`` each counted lines from the start of the body (past 30 s):
    now each finding counts on from the last, and past twenty the rest are one line that counts them."""
    body = "\n".join("{{nope}} text" for _ in range(250_000))
    docs = write_docs(
        tmp_path / "docs", {"a.md": "# A\n", "p.template.md": f"---\nname: p\ndescription: d\n---\n{body}\n"}
    )
    found = [(line, message) for _path, line, severity, message in _findings(docs) if severity == "error"]
    summary = (24, "and 249,980 more placeholders that name no argument")
    assert summary in found and len(found) == 21
    assert sorted(line for line, message in found if message != summary[1]) == list(range(5, 25))
