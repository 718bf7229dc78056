"""Site generators recognised from their configs, read as data (``corpus/site.py``), and what a docs
folder read as a site's source gives: page URLs, stub pages, includes confined to the repository,
``.mdx`` pages only for Docusaurus, and validate's summary."""

from __future__ import annotations

import json
from pathlib import Path

from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.site import detect_site
from docs_mcp.corpus.validation import validate
from testkit.index_fixtures import write_docs

MKDOCS_YML = """INHERIT: base.yml
site_name: Acme Docs
site_url: https://docs.acme.dev/v2
use_directory_urls: false
markdown_extensions:
  - pymdownx.superfences:
      custom_fences:
        - name: mermaid
          format: !!python/name:pymdownx.superfences.fence_code_format
  - pymdownx.highlight:
      linenums: !ENV [LINENUMS, false]
plugins:
  - macros
"""


def test_mkdocs_config_is_read_as_data_with_its_python_tags_and_inherit(tmp_path: Path) -> None:
    write_docs(
        tmp_path,
        {"mkdocs.yml": MKDOCS_YML, "base.yml": "extra:\n  version: '2.0'\n", "docs/index.md": "# A\n"},
    )
    site = detect_site(tmp_path / "docs")
    assert (site.generator, site.name, site.url) == ("mkdocs", "Acme Docs", "https://docs.acme.dev/v2/")
    assert site.macros and site.variables == {"version": "2.0"} and not site.use_directory_urls
    assert site.repo_root == tmp_path


def test_docusaurus_config_gives_its_top_level_literals_and_is_never_run(tmp_path: Path) -> None:
    config = """// @ts-check
const sideEffect = require('fs').writeFileSync('/tmp/should-not-exist', 'x')
module.exports = {
  title: "Widget",
  url: 'https://widget.io',
  baseUrl: '/site/',
  themeConfig: { navbar: { title: 'Navbar title' } },
  presets: [['classic', { docs: { routeBasePath: 'guide' } }]],
}
"""
    write_docs(tmp_path, {"docusaurus.config.js": config, "docs/intro.mdx": "# Intro\n"})
    site = detect_site(tmp_path / "docs")
    assert (site.generator, site.name, site.url) == ("docusaurus", "Widget", "https://widget.io/site/guide/")
    assert site.reads_mdx


def test_sphinx_conf_py_and_the_manifest_site_key(tmp_path: Path) -> None:
    conf = "import os\nproject = 'Thing'\nextensions = ['myst_parser']\nhtml_baseurl = os.environ['X']\n"
    write_docs(tmp_path, {"docs/conf.py": conf, "docs/index.md": "# Thing\n"})
    site = detect_site(tmp_path / "docs")
    assert (site.generator, site.name, site.url, site.myst) == ("sphinx", "Thing", None, True)
    declared = {"url": "https://thing.dev", "name": "Thing Docs"}
    site = detect_site(tmp_path / "docs", declared=declared)
    assert (site.name, site.url) == ("Thing Docs", "https://thing.dev/")


def test_a_broken_config_is_a_finding_and_the_folder_reads_as_plain_markdown(tmp_path: Path) -> None:
    write_docs(tmp_path, {"mkdocs.yml": "site_name: [unclosed\n", "docs/index.md": "# A\n\nText.\n"})
    corpus = load_corpus(tmp_path / "docs")
    assert [f.rule for f in corpus.findings if f.rule == "site-config"] == ["site-config"]
    assert not corpus.site.recognised


def test_page_urls_anchors_explicit_ids_and_stub_pages(tmp_path: Path) -> None:
    write_docs(
        tmp_path,
        {
            "mkdocs.yml": "site_name: Acme\nsite_url: https://acme.dev/\n",
            "docs/index.md": "# Acme\n\nWelcome text.\n\n## Get Started {#start}\n\nSteps here.\n",
            "docs/guide/setup.md": (
                "# Setup\n\n## Install it, now!\n\nRun pip.\n\n## `Client`\n\n::: acme.Client\n"
            ),
            "docs/api.md": "# API\n\n::: acme\n    options:\n      members: true\n",
        },
    )
    corpus = load_corpus(tmp_path / "docs")
    assert corpus.urls == {
        "index.md#acme": "https://acme.dev/",
        "index.md#acme/get-started": "https://acme.dev/#start",
        "guide/setup.md#setup/install-it-now": "https://acme.dev/guide/setup/#install-it-now",
    }
    assert "api.md" not in {chunk.file_path for chunk in corpus.chunks}
    rules = {(f.path, f.rule) for f in corpus.findings}
    assert ("api.md", "stub-page") in rules and ("guide/setup.md", "stub-section") in rules
    report = validate(tmp_path / "docs")
    assert report.site is not None and report.site["generator"] == "mkdocs"
    # No source of ``acme`` beside the docs: both stubs are reported unresolved (issue 32), and stay stubs.
    assert report.site_counts() == {"api-unresolved": 2, "stub-page": 1, "stub-section": 1}
    assert "site: mkdocs 'Acme' at https://acme.dev/; " in report.summary()
    assert "1 stub-page, 1 stub-section" in report.summary()


def test_includes_are_read_inside_the_repository_folder_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write_docs(tmp_path, {"secret.txt": "TOP SECRET\n"})
    write_docs(
        repo,
        {
            "mkdocs.yml": "site_name: Acme\n",
            "docs_src/hello.py": "print('hello')\n",
            "docs/page.md": '# Page\n\n{* docs_src/hello.py *}\n\n--8<-- "../secret.txt"\n\nText.\n',
        },
    )
    corpus = load_corpus(repo / "docs")
    text = "\n".join(chunk.markdown for chunk in corpus.chunks)
    assert "print('hello')" in text and "TOP SECRET" not in text
    outside = [f for f in corpus.findings if f.rule == "include-outside"]
    assert [(f.path, f.line) for f in outside] == [("page.md", 5)]
    assert corpus.urls == {}  # no site_url: no URL at all


def test_mdx_pages_are_read_wherever_they_are_and_left_out_only_by_a_generator_without_mdx(
    tmp_path: Path,
) -> None:
    files = {"docs/a.mdx": "---\nslug: /start\n---\n# A\n\nimport X from 'x'\n\nText <X>inside</X>.\n"}
    write_docs(tmp_path / "plain", files)
    plain = load_corpus(tmp_path / "plain" / "docs")
    assert [chunk.text for chunk in plain.chunks] == ["Text inside."] and plain.site.generator == "mdx"
    assert plain.urls == {}
    write_docs(tmp_path / "mkdocs", {**files, "mkdocs.yml": "site_name: M\n"})
    mkdocs = load_corpus(tmp_path / "mkdocs" / "docs")
    assert mkdocs.files == [] and "mdx-not-read" in [f.rule for f in mkdocs.findings]
    config = "module.exports = { title: 'D', url: 'https://d.dev', baseUrl: '/' }\n"
    write_docs(tmp_path / "site", {**files, "docusaurus.config.js": config})
    site = load_corpus(tmp_path / "site" / "docs")
    assert [chunk.text for chunk in site.chunks] == ["Text inside."]
    assert site.urls == {"a.mdx#a": "https://d.dev/docs/start"}


def test_the_site_config_can_be_given_explicitly(tmp_path: Path) -> None:
    write_docs(
        tmp_path,
        {
            "conf/site.yml": "site_name: Far\nsite_url: https://far.dev/\n",
            "pages/x.md": "# X\n\n!!! note\n    Hi.\n",
        },
    )
    corpus = load_corpus(tmp_path / "pages", site_config=tmp_path / "conf" / "site.yml")
    assert corpus.site.name == "Far" and corpus.chunks[0].text == "Note:\nHi."
    manifest = {"version": "1", "site": {"config": "../conf/site.yml"}}
    (tmp_path / "pages" / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert load_corpus(tmp_path / "pages").site.name == "Far"


def test_docusaurus_partials_are_included_where_imported_and_are_no_pages(tmp_path: Path) -> None:
    config = "module.exports = { title: 'D', url: 'https://d.dev', baseUrl: '/' }\n"
    page = "# Setup\n\nimport Install from './_install.mdx'\n\nBefore.\n\n<Install />\n\nAfter.\n"
    write_docs(
        tmp_path,
        {
            "docusaurus.config.js": config,
            "docs/setup.mdx": page,
            "docs/_install.mdx": ":::tip\n\nRun npm install.\n\n:::\n",
        },
    )
    corpus = load_corpus(tmp_path / "docs")
    assert [file.path for file in corpus.files] == ["setup.mdx"]
    assert corpus.chunks[0].text == "Before.\n\nTip:\nRun npm install.\n\nAfter."
