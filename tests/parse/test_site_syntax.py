"""Generator syntax made plain (``docs_mcp.parse.site_syntax``): one case per construct, including the
ones the evaldata sites do not use (content tabs, snippets, code annotations, cross-references, MyST)."""

from __future__ import annotations

import re

import pytest
from chunk_ownership import assert_ownership

from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.site_include import MAX_INCLUDED_BYTES
from docs_mcp.parse.site_syntax import Dialect, normalise_site_syntax

MKDOCS = Dialect("mkdocs", variables={"version": "2.1", "project": {"name": "Acme"}})


def _reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    def read(target: str, page: str) -> tuple[str | None, str | None]:
        if target.startswith(".."):
            return None, "outside the repository folder /repo; never read"
        return (files[target], None) if target in files else (None, "no such file in /repo")

    return read


def test_mkdocs_admonitions_tabs_and_annotations_become_labelled_plain_markdown() -> None:
    source = (
        "# Title\n\n"
        '!!! note "Heads up"\n    Body line one\n\n    Body line two\n\nAfter.\n\n'
        "??? tip\n    Folded tip.\n\n"
        '=== "Python"\n\n    ```python\n    x = 1  # (1)!\n    ```\n\n'
        '=== "Go"\n\n    ```go\n    x := 1 // (2)\n    ```\n\n'
        "1.  The annotation text.\n"
    )
    result = normalise_site_syntax(source, MKDOCS)
    lines = result.text.split("\n")
    assert len(lines) == len(source.split("\n")) and result.origins is None
    assert "> Note: Heads up\n> Body line one\n>\n> Body line two\n\nAfter." in result.text
    assert "> Tip:\n> Folded tip." in result.text
    assert "Python:\n\n```python\nx = 1\n```" in result.text
    assert "Go:\n\n```go\nx := 1\n```" in result.text
    assert "1.  The annotation text." in result.text


def test_pymdownx_blocks_autodoc_stubs_and_source_includes() -> None:
    source = (
        "/// warning | Careful\n    type: warning\n\nBody.\n\n///\n\n"
        "//// tab | Linux\n\nrun it\n\n////\n\n"
        "::: acme.Client\n    options:\n      show_source: false\n\n"
        "{* docs_src/app.py ln[2:3] hl[2] *}\n\n{* ../secret.py *}\n\n{* docs_src/missing.py *}\n"
    )
    result = normalise_site_syntax(source, MKDOCS, _reader({"docs_src/app.py": "a = 1\nb = 2\nc = 3\n"}))
    assert "> Warning: Careful" in result.text and "> Body." in result.text and "type:" not in result.text
    assert "Linux:\n\nrun it" in result.text
    assert ":::" not in result.text and "show_source" not in result.text and result.autodoc == 1
    assert "```python\nb = 2\nc = 3\n```" in result.text
    assert [(n.rule, n.line) for n in result.notes] == [("include-outside", 20), ("include-missing", 22)]
    assert result.origins is not None and result.origins[result.text.split("\n").index("b = 2")] == 18


def test_snippets_resolve_inside_code_and_as_markdown() -> None:
    source = '```python\n--8<-- "examples/hello.py"\n```\n\n--8<-- "parts/note.md"\n'
    files = {"examples/hello.py": "print('hi')\n", "parts/note.md": "!!! note\n    From a part.\n"}
    result = normalise_site_syntax(source, MKDOCS, _reader(files))
    assert "```python\nprint('hi')\n```" in result.text
    assert "> Note:\n> From a part." in result.text


def test_inline_syntax_attribute_lists_cross_references_and_macros() -> None:
    source = (
        "## Validators {#validator-v1}\n\n"
        "See [`Field`][pydantic.fields.Field] and [pydantic.main.BaseModel][] or [a real link][ref].\n\n"
        "[ref]: https://example.com\n\n"
        "Version {{ version }} of {{ project.name }} and {{ unknown_thing }}.\n\n"
        "[](){#anchor} A [button](x.md){ .md-button } here, `{{ kept in code }}`.\n"
    )
    result = normalise_site_syntax(source, MKDOCS)
    assert result.text.startswith("## Validators\n")
    assert result.heading_ids == {1: "validator-v1"}
    assert "See [`Field`] and [pydantic.main.BaseModel] or [a real link][ref]." not in result.text
    assert "See `Field` and pydantic.main.BaseModel or [a real link][ref]." in result.text
    assert "Version 2.1 of Acme and ." in result.text
    assert [n.rule for n in result.notes] == ["unresolved-macro"]
    assert " A [button](x.md) here, `{{ kept in code }}`." in result.text


def test_nextra_custom_heading_ids_go_from_the_heading_and_name_its_anchor() -> None:
    source = (
        "# Mutation [#mutation]\n\nText.\n\n## useSWRMutation  [#use-swr-mutation]\n\nMore.\n\n"
        "## Arrays [#]\n\n## Revalidate on Mount[#revalidate-on-mount]\n"
    )
    result = normalise_site_syntax(source, Dialect("nextra", mdx=True))
    assert result.text.startswith("# Mutation\n")
    assert "## useSWRMutation\n" in result.text
    assert "## Arrays [#]" in result.text  # no id: the text stays as written
    assert "## Revalidate on Mount\n" in result.text  # Nextra takes the id with no space before it too
    assert result.heading_ids == {1: "mutation", 5: "use-swr-mutation", 11: "revalidate-on-mount"}


def test_docusaurus_admonitions_and_mdx() -> None:
    source = (
        "---\nid: intro\n---\n\n"
        "import Tabs from '@theme/Tabs'\nimport {\n  TabItem,\n} from '@theme/TabItem'\n\n"
        ":::tip[Pro tip]\n\nUse **queries**.\n\n:::\n\n"
        '<Tabs>\n<TabItem value="npm" label="npm">\n\n```bash\nnpm i x\n```\n\n</TabItem>\n</Tabs>\n\n'
        '{/* a comment */}Text with <Highlight color="red">words</Highlight> <img style={{margin: 0}} />\n\n'
        "export const meta = {\n  a: 1,\n}\n"
    )
    result = normalise_site_syntax(source, Dialect("docusaurus", mdx=True))
    assert result.text.startswith("---\nid: intro\n---\n")
    assert "import" not in result.text and "export" not in result.text and "TabItem" not in result.text
    assert "> Tip: Pro tip\n>\n> Use **queries**." in result.text
    assert "npm:\n\n```bash\nnpm i x\n```" in result.text
    assert "Text with words <img />" in result.text
    assert result.notes == []


def test_myst_directives_targets_and_roles() -> None:
    source = (
        "(install-label)=\n## Install\n\n"
        "```{note}\nA note with {ref}`the guide <guide-label>` and {py:class}`~acme.Client`.\n```\n\n"
        ":::{tip} Short\nColon fenced.\n:::\n\n"
        "```{code-block} python\n:linenos:\nprint(1)\n```\n\n"
        "```{toctree}\n:maxdepth: 2\n\nintro\nusage\n```\n\nEnd with {doc}`usage`.\n"
    )
    result = normalise_site_syntax(source, Dialect("sphinx"))
    text = result.text
    assert "(install-label)=" not in text and "## Install" in text
    assert "> Note:\n> A note with the guide and `Client`." in text
    assert "> Tip: Short\n> Colon fenced." in text
    assert "```python\n\nprint(1)\n```" in text
    assert "maxdepth" not in text and "intro\nusage" not in text
    assert "End with usage." in text


def test_chunks_own_the_normalised_text_and_keep_source_lines() -> None:
    source = (
        "# Page\n\nIntro.\n\n## One {#first}\n\n!!! warning\n    Mind it.\n\n"
        '=== "A"\n    Tab text.\n\n## Two\n\n::: acme.mod\n\n## Three\n\nText.\n'
    )
    result = normalise_site_syntax(source, MKDOCS)
    chunked = chunk_file(result.text, "page.md", FileSettings())
    assert_ownership(result.text, chunked)
    assert [c.id for c in chunked.chunks] == [
        "page.md#page",
        "page.md#page/one",
        "page.md#page/two",
        "page.md#page/three",
    ]
    one = chunked.chunks[1]
    assert one.start_line == 5 and "Warning:\nMind it." in one.text and "A:\nTab text." in one.text


def test_plain_text_stays_as_it_is() -> None:
    source = "# Title\n\nJust text with a {brace} and [a][b] link.\n\n[b]: https://b\n"
    assert normalise_site_syntax(source, MKDOCS).text == source


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "line",
    [
        "{{ " * 50_000,
        "{% " * 50_000,
        "{/* " * 50_000,
        "{ref}`" * 30_000,
        "::: note" + " " * 100_000 + "x",
        "/// tip | " + " a" * 50_000,
        "## Title " + " " * 100_000 + "{#x",
        "[a][" * 30_000,
        "<Tab " * 30_000,
    ],
)
def test_hostile_lines_are_normalised_in_linear_time(line: str) -> None:
    """One pathological line per rewrite (openers never closed, long blank runs): each must take
    linear time, or the timeout fails it (a quadratic rewrite would take minutes)."""
    for dialect in (MKDOCS, Dialect("docusaurus", mdx=True), Dialect("sphinx")):
        result = normalise_site_syntax(f"# T\n\n{line}\n\n```py\nx = 1{' ' * 100_000}# (1)!\n```\n", dialect)
        assert result.text.startswith("# T\n")


def test_a_page_that_includes_itself_is_refused_with_a_finding() -> None:
    # Found by a mkdocs page with ``--8<-- "docs/a.md"`` in docs/a.md: it recursed until Python's limit.
    page = '# A\n\nText\n\n--8<-- "a.md"\n'
    result = normalise_site_syntax(page, MKDOCS, _reader({"a.md": page}), "a.md")
    assert result.text.count("Text") == 1  # a file including itself is refused at once
    assert [note.rule for note in result.notes] == ["include-missing"]
    assert "includes itself (a.md -> a.md)" in result.notes[0].message and result.notes[0].line == 5


def test_a_page_including_itself_many_times_expands_none_of_them() -> None:
    """A 24-line page including itself 20 times (depth was capped at 4, the copies were not: 20^4)
    ran validate past 40 s; as ``./a.md`` or through another file the same."""
    page = "# A\n\n" + "Some text.\n\n" * 10 + '--8<-- "./a.md"\n\n' * 20
    result = normalise_site_syntax(page, MKDOCS, _reader({"./a.md": page}), "a.md")
    assert result.text.count("Some text.") == 10
    assert len(result.notes) == 20 and all("includes itself" in n.message for n in result.notes)
    other = '--8<-- "b.md"\n'
    cycle = normalise_site_syntax(other, MKDOCS, _reader({"b.md": '--8<-- "a.md"\n', "a.md": other}), "a.md")
    assert "includes itself (a.md -> b.md -> a.md)" in cycle.notes[0].message


def test_includes_fanning_out_are_bounded_in_total_not_only_in_depth() -> None:
    """Five files each including the next 20 times: 20^4 copies of the last before, now its
    includes add at most MAX_INCLUDED_BYTES to the page, and the rest are findings."""
    leaf = "x" * 2_000 + "\n"
    files = {f"f{n}.md": f'--8<-- "f{n + 1}.md"\n' * 20 for n in range(1, 4)} | {"f4.md": leaf}
    result = normalise_site_syntax('--8<-- "f1.md"\n' * 20, MKDOCS, _reader(files), "page.md")
    assert len(result.text) <= MAX_INCLUDED_BYTES + 20 * 8_000
    assert MAX_INCLUDED_BYTES // 4_000 < result.text.count("x" * 2_000) <= MAX_INCLUDED_BYTES // 2_001
    assert any(f"includes pass {MAX_INCLUDED_BYTES:,} bytes" in note.message for note in result.notes)


def test_a_dialects_api_reference_hook_replaces_autodoc_stubs_and_none_keeps_dropping_them() -> None:
    """The slot the API-reference reader plugs into: ``::: pkg.mod`` (and its option lines) becomes
    the markdown the hook gives; a hook giving None drops it as before (a stub)."""
    source = "# API\n\n::: pkg.mod.Thing\n    options:\n      members: true\n\nAfter.\n"

    def reference(target: str, kind: str) -> str | None:
        return f"## `{target}`\n\nDoes a thing." if target == "pkg.mod.Thing" else None

    resolved = normalise_site_syntax(source, Dialect("mkdocs", api_reference=reference))
    assert "## `pkg.mod.Thing`\n\nDoes a thing." in resolved.text and "options" not in resolved.text
    assert resolved.autodoc == 0
    dropped = normalise_site_syntax(source, Dialect("mkdocs", api_reference=lambda target, kind: None))
    assert "pkg.mod" not in dropped.text and dropped.autodoc == 1 and "After." in dropped.text


def test_a_dialects_own_rules_rewrite_lines_include_files_and_drop_blocks() -> None:
    from docs_mcp.parse.site_include import Include

    def include(content: str, in_code: bool) -> Include | None:
        return Include(content.split()[1], verbatim=in_code) if content.startswith("@inc ") else None

    dialect = Dialect(
        "custom",
        families=frozenset(["plain"]),
        line_rules=(lambda text: text.replace("[[x]]", "X"),),
        include_rules=(include,),
        drop_blocks=((re.compile(r"^<style"), re.compile(r"</style>")),),
    )
    source = "# T\n\nSay [[x]] and `[[x]]`.\n\n<style>\np { }\n</style>\n\n```\n@inc part.txt\n```\n"
    result = normalise_site_syntax(source, dialect, _reader({"part.txt": "line one\n"}))
    assert "Say X and `[[x]]`." in result.text and "p { }" not in result.text
    assert "```\nline one\n```" in result.text


@pytest.mark.parametrize(
    ("include", "lines_taken"),
    [('--8<-- "a.py:\u00b2"', True), ('--8<-- "a.py:1:\u00b2"', True), ("{* a.py ln[\u00b2] *}", True),
     ('--8<-- "a.py:' + "9" * 5000 + '"', False), ("{* a.py ln[" + "9" * 5000 + "] *}", False),
     ("{* a.py ln[2:" + "9" * 5000 + "] *}", True)],
)  # fmt: skip
def test_include_line_numbers_in_other_scripts_or_past_int_limits_never_raise(
    include: str, lines_taken: bool
) -> None:
    """``"²".isdigit()`` is true but ``int("²")`` raises, and int() refuses 4,300+ digits: both were a
    ValueError traceback out of validate. "²" is no line range (the section is a name, as any other
    text); a line number of 5,000 digits is past the end of every file."""
    result = normalise_site_syntax(f"# T\n\n{include}\n", MKDOCS, _reader({"a.py": "a\nb\nc\n"}), "p.md")
    assert result.text.startswith("# T\n")
    assert ("b\nc" in result.text) is lines_taken
