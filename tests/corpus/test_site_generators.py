"""Each site generator of ``corpus/sites`` (issue 32): recognised from its config read as data, its
name, base URL and routes, its partials, its syntax made plain, its nav titles; and what holds for
every config (issue 33: a hostile ``conf.py`` is one finding, a non-http(s) URL never a hit's URL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.corpus.loader import EMPTY_CORPUS_RULE, load_corpus
from docs_mcp.corpus.site import detect_site
from docs_mcp.corpus.sites import REGISTRY
from testkit.index_fixtures import write_docs


def _text(corpus_root: Path) -> dict[str, str]:
    corpus = load_corpus(corpus_root)
    return {chunk.id: chunk.markdown for chunk in corpus.chunks}


def test_every_generator_has_a_name_and_a_module_of_its_own() -> None:
    names = [generator.name for generator in REGISTRY]
    assert len(names) == len(set(names)) == 10
    assert len({type(generator).__module__ for generator in REGISTRY}) == 10


def test_vitepress_containers_scripts_interpolations_and_includes_become_plain(tmp_path: Path) -> None:
    config = (
        "import { x } from './meta'\nexport default { title: 'Vite Thing', description: 'Fast',\n"
        "  srcExclude: ['**/parts/*'], sitemap: { hostname: 'https://vt.dev' }, cleanUrls: true }\n"
    )
    snippet = "// #region setup\nconst a = 1\n// #endregion setup\nconst b = 2\n"
    page = (
        "# Guide\n\n<script setup>\nimport Comp from './Comp.vue'\n</script>\n\n"
        "::: tip Keep it {#tip-id}\nTips inside, {{ $frontmatter.title }} gone.\n:::\n\n"
        '## Code <Badge type="info">new</Badge> {#code}\n\n<<< ./snippets/a.ts#setup{ts}\n\n'
        "<!--@include: ./parts/shared.md-->\n"
    )
    docs = (
        write_docs(
            tmp_path,
            {
                "docs/.vitepress/config.ts": config,
                "docs/guide.md": page,
                "docs/snippets/a.ts": snippet,
                "docs/parts/shared.md": "Shared words.\n",
            },
        )
        / "docs"
    )
    corpus = load_corpus(docs)
    assert (corpus.site.generator, corpus.site.name, corpus.site.url) == (
        "vitepress",
        "Vite Thing",
        "https://vt.dev/",
    )
    assert [file.path for file in corpus.files] == ["guide.md"]  # srcExclude: a partial
    text = "\n".join(chunk.markdown for chunk in corpus.chunks)
    assert "> Tip: Keep it\n> Tips inside,  gone." in text
    assert "```ts\nconst a = 1\n```" in text and "const b" not in text and "Shared words." in text
    assert "<script" not in text and "{{" not in text and "<Badge" not in text and "{#" not in text
    code = next(chunk for chunk in corpus.chunks if chunk.heading.startswith("Code"))
    assert (code.heading, corpus.urls[code.id]) == ("Code new", "https://vt.dev/guide#code")


def test_hugo_shortcodes_go_with_their_labels_code_tabs_and_escaped_forms(tmp_path: Path) -> None:
    page = (
        "---\ntitle: Setup\n---\n\n"
        '{{% alert title="Heads up" color="warning" %}}\nAlert body.\n{{% /alert %}}\n\n'
        '{{< tabpane >}}\n{{< tab header="hugo.yaml" lang="yaml" >}}\n'
        "# a yaml comment\nkey: 1\n{{< /tab >}}\n{{< /tabpane >}}\n\n"
        "Show `{{</* tabpane */>}}` and {{</* tab */>}} literally; version {{% param version %}}.\n\n"
        '{{% blocks/cover title="Cover"\n  image_anchor="top" %}}\nCovered.\n{{% /blocks/cover %}}\n'
    )
    root = write_docs(
        tmp_path,
        {
            "site/hugo.toml": (
                "title = 'Hugo Site'\nbaseURL = 'https://hugo.dev/'\n[params]\ndescription = 'About'\n"
            ),
            "site/content/docs/Set-Up.md": page,
            "site/content/docs/_common/part.md": "Partial.\n",
            "site/content/docs/bundle/index.md": "---\nheadless: true\n---\nHeadless.\n",
        },
    )
    corpus = load_corpus(root / "site" / "content")
    assert (corpus.site.name, corpus.site.url, corpus.site.description) == (
        "Hugo Site",
        "https://hugo.dev/",
        "About",
    )
    assert [file.path for file in corpus.files] == ["docs/Set-Up.md"]
    text = corpus.chunks[0].markdown
    assert "Heads up:\nAlert body." in text and "```yaml\n# a yaml comment\nkey: 1\n```" in text
    assert "`{{< tabpane >}}` and `{{< tab >}}` literally; version ." in text
    assert "Cover:\n" in text and "Covered." in text and "{{%" not in text.replace("`{{<", "")
    assert corpus.urls[corpus.chunks[0].id] == "https://hugo.dev/docs/set-up/"


def test_mdbook_includes_pull_anchors_and_line_ranges_and_summary_names_the_pages(tmp_path: Path) -> None:
    code = "fn a() {}\n// ANCHOR: main\nfn main() {\n    a();\n}\n// ANCHOR_END: main\n"
    page = (
        "# Chapter\n\n```rust\n{{#include ../examples/lib.rs:main}}\n```\n\n"
        "```rust\n{{#rustdoc_include ../examples/lib.rs:1:1}}\n```\n"
    )
    root = write_docs(
        tmp_path,
        {
            "book/book.toml": "[book]\ntitle = 'The Book'\n[output.html]\nsite-url = '/book/'\n",
            "book/src/SUMMARY.md": "# Summary\n\n- [First chapter](chapter.md)\n- [Draft]()\n",
            "book/src/chapter.md": page,
            "book/src/unlisted.md": "# Not in the book\n\nText.\n",
            "book/examples/lib.rs": code,
        },
    )
    corpus = load_corpus(root / "book" / "src")
    assert (corpus.site.generator, corpus.site.name, corpus.site.url) == ("mdbook", "The Book", None)
    assert [file.path for file in corpus.files] == ["chapter.md"]
    text = corpus.chunks[0].markdown
    assert "```rust\nfn main() {\n    a();\n}\n```" in text and "```rust\nfn a() {}\n```" in text
    assert "ANCHOR" not in text and "{{#" not in text


def test_gitbook_tags_become_labels_and_summary_titles_name_headingless_pages(tmp_path: Path) -> None:
    page = (
        '{% hint style="warning" %}\nMind the gap.\n{% endhint %}\n\n{% tabs %}\n{% tab title="Linux" %}\n'
        'Run it.\n{% endtab %}\n{% endtabs %}\n\n{% embed url="https://youtu.be/x" %}\n'
    )
    root = write_docs(
        tmp_path,
        {
            ".gitbook.yaml": "root: ./docs/\n",
            "docs/README.md": "# Gadget Docs\n\nWelcome.\n",
            "docs/SUMMARY.md": "# Contents\n\n* [Intro](README.md)\n* [Installing it](setup/install.md)\n",
            "docs/setup/install.md": page,
        },
    )
    corpus = load_corpus(root / "docs")
    assert (corpus.site.generator, corpus.site.name) == ("gitbook", "Gadget Docs")
    chunk = next(chunk for chunk in corpus.chunks if chunk.file_path == "setup/install.md")
    assert chunk.heading == "Installing it"
    assert "Warning:\nMind the gap." in chunk.markdown and "Linux:\nRun it." in chunk.markdown
    assert "{%" not in chunk.markdown


def test_mintlify_starlight_and_nextra_read_mdx_components_partials_and_titles(tmp_path: Path) -> None:
    mdx = (
        '---\ntitle: Quick start\n---\nimport { Card } from \'x\'\n\n<Card\n  title="Go"\n  href="/go"\n>\n'
        "  Card text.\n</Card>\n\n<Note>Noted.</Note>\n"
    )
    root = write_docs(
        tmp_path,
        {
            "mint/docs.json": '{"$schema": "https://mintlify.com/docs.json", "name": "Mint Co"}',
            "mint/start.mdx": mdx,
            "mint/snippets/part.mdx": "Snippet.\n",
            "astro/astro.config.mjs": "export default { site: process.env.X || 'https://star.dev',\n"
            "  integrations: [starlight({ title: 'Star Docs' })] }\n",
            "astro/src/content/docs/Start.mdx": mdx,
            "next/theme.config.js": (
                "import nextra from 'nextra'\nexport default { titleTemplate: '%s \u2013 Nexty' }\n"
            ),
            "next/pages/_app.mdx": "export default function App() {}\n",
            "next/pages/_meta.en-US.json": '{"intro": "Introduction to Nexty"}',
            "next/pages/intro.en-US.mdx": "Intro words.\n",
        },
    )
    mint = load_corpus(root / "mint")
    assert (mint.site.generator, mint.site.name, [f.path for f in mint.files]) == (
        "mintlify",
        "Mint Co",
        ["start.mdx"],
    )
    assert mint.chunks[0].heading == "Quick start"
    assert "Card text." in mint.chunks[0].markdown and "Noted." in mint.chunks[0].markdown
    assert "<" not in mint.chunks[0].markdown and "href" not in mint.chunks[0].markdown
    star = load_corpus(root / "astro" / "src" / "content" / "docs")
    assert (star.site.generator, star.site.name, star.site.url) == (
        "starlight",
        "Star Docs",
        "https://star.dev/",
    )
    assert set(star.urls.values()) == {"https://star.dev/start/"}
    nextra = load_corpus(root / "next" / "pages")
    assert (nextra.site.generator, nextra.site.name) == ("nextra", "Nexty")
    assert [(f.path, f.chunks[0].heading) for f in nextra.files] == [
        ("intro.en-US.mdx", "Introduction to Nexty")
    ]


@pytest.mark.parametrize(
    ("config", "text"),
    [
        ("mkdocs.yml", "site_name: X\nsite_url: javascript:alert(1)//\n"),
        (
            "docusaurus.config.js",
            "module.exports = { title: 'X', url: 'javascript:alert(1)', baseUrl: '/' }\n",
        ),
        ("docs/conf.py", "project = 'X'\nhtml_baseurl = 'javascript:alert(1)'\n"),
        ("hugo.toml", "title = 'X'\nbaseURL = 'javascript:alert(1)'\n"),
        ("book.toml", "[book]\ntitle = 'X'\nsrc = 'docs'\n[output.html]\nsite-url = 'data:text/html,x'\n"),
    ],
)
def test_a_site_url_that_is_not_http_never_reaches_a_hit(tmp_path: Path, config: str, text: str) -> None:
    """Issue 33 item 12: URLs from any config are held to http(s) where configs are read."""
    write_docs(
        tmp_path, {config: text, "docs/page.md": "# Page\n\nWords.\n", "docs/SUMMARY.md": "- [P](page.md)\n"}
    )
    corpus = load_corpus(tmp_path / "docs")
    assert corpus.site.recognised and corpus.site.url is None and corpus.urls == {}


def test_a_manifest_url_template_gives_urls_with_no_generator_and_only_http(tmp_path: Path) -> None:
    template = '{"version": "1", "site": {"url_template": "https://x.dev/{path}/"}}'
    write_docs(tmp_path, {"docs/.docs-mcp.json": template, "docs/a/b.md": "# B\n\nText.\n"})
    assert load_corpus(tmp_path / "docs").urls == {"a/b.md#b": "https://x.dev/a/b/"}
    bad = '{"version": "1", "site": {"url_template": "javascript:alert(1)//{path}"}}'
    write_docs(tmp_path, {"docs/.docs-mcp.json": bad})
    assert load_corpus(tmp_path / "docs").urls == {}


@pytest.mark.parametrize("signs", [3_000, 100_000])
def test_a_conf_py_nested_thousands_deep_is_one_finding_not_a_crash(tmp_path: Path, signs: int) -> None:
    """Issue 33 item 9: ``x = ---...1`` killed validate and build with RecursionError / MemoryError."""
    write_docs(tmp_path, {"docs/conf.py": "x = " + "-" * signs + "1\n", "docs/index.md": "# Home\n\nText.\n"})
    site = detect_site(tmp_path / "docs")
    assert [finding.rule for finding in site.findings] == ["site-config"]
    assert "nests" in site.findings[0].message and "\n" not in site.findings[0].message
    assert load_corpus(tmp_path / "docs").chunks  # the pages are still read


def test_an_empty_docs_folder_is_an_error_naming_what_was_looked_for(tmp_path: Path) -> None:
    mintlify = '{"name": "M", "navigation": {}}'
    write_docs(tmp_path, {"docs/notes.txt": "not a page\n", "docs/docs.json": mintlify})
    corpus = load_corpus(tmp_path / "docs")
    [finding] = [f for f in corpus.errors if f.rule == EMPTY_CORPUS_RULE]
    assert str(tmp_path / "docs") in finding.message and "*.md or *.mdx" in finding.message


def test_a_config_given_by_path_is_read_by_the_generator_whose_file_it_is(tmp_path: Path) -> None:
    config = "export default { title: 'Far' }\n"
    write_docs(tmp_path, {"site/.vitepress/config.mts": config, "docs/a.md": "# A\n"})
    site = detect_site(tmp_path / "docs", site_config=tmp_path / "site" / ".vitepress" / "config.mts")
    assert (site.generator, site.name) == ("vitepress", "Far")


@pytest.mark.parametrize("site", [True, False], ids=["mkdocs site", "plain folder"])
def test_a_preamble_of_only_metadata_comments_or_anchors_is_not_a_chunk(tmp_path: Path, site: bool) -> None:
    page = '- Start Date: 2020-01-01\n- RFC PR: [#1](https://x.dev/1)\n<a id="top"></a>\n\n'
    page += "# Summary\n\nWords.\n"
    write_docs(tmp_path, {"docs/rfc.md": page, **({"mkdocs.yml": "site_name: R\n"} if site else {})})
    corpus = load_corpus(tmp_path / "docs")
    assert corpus.site.recognised is site
    assert [(chunk.id, chunk.heading) for chunk in corpus.chunks] == [("rfc.md#summary", "Summary")]


def test_a_manifest_site_url_that_is_not_http_is_an_error_and_never_a_url(tmp_path: Path) -> None:
    manifest = '{"version": "1", "site": {"generator": "mkdocs", "url": "javascript:alert(1)//"}}'
    write_docs(tmp_path, {"docs/.docs-mcp.json": manifest, "docs/a.md": "# A\n\nText.\n"})
    corpus = load_corpus(tmp_path / "docs")
    assert [f.rule for f in corpus.errors] == ["invalid-manifest"] and corpus.urls == {}
    assert detect_site(tmp_path / "docs", declared={"url": "javascript:alert(1)//"}).url is None


def test_a_manifest_names_any_registered_generator_and_an_unknown_one_is_a_warning(tmp_path: Path) -> None:
    write_docs(
        tmp_path,
        {"docs/.docs-mcp.json": '{"version": "1", "site": {"generator": "hugo"}}', "docs/a.md": "# A\n"},
    )
    assert load_corpus(tmp_path / "docs").site.generator == "hugo"
    write_docs(tmp_path, {"docs/.docs-mcp.json": '{"version": "1", "site": {"generator": "jekyll"}}'})
    corpus = load_corpus(tmp_path / "docs")
    assert corpus.site.generator == "none"
    assert [f.rule for f in corpus.findings if "jekyll" in f.message] == ["site-config"]
