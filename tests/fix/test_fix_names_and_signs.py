"""What ``fix`` calls a folder (package metadata, a README's opening H1, the folder) and what tells it
the pages belong to a site generator (a config near the folder, generator pages or syntax)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.fix import fix
from docs_mcp.fix.corpus_name import package_names
from docs_mcp.fix.generator_signs import generator_sign
from docs_mcp.fix.outline import scan


def instructions(docs: Path) -> str:
    return str(json.loads(fix(docs).changes[0].after)["mcpServerInstructions"])


def sdk_folder(root: Path, language: str, readme: str) -> None:
    (root / language).mkdir(parents=True)
    (root / language / "README.md").write_text(readme, encoding="utf-8")
    fence = {"python": "python", "typescript": "ts", "go": "go"}[language]
    (root / language / "USAGE.md").write_text(f"# Usage\n\n```{fence}\nx\n```\n", encoding="utf-8")


def test_a_plain_sdk_folder_is_named_after_itself_never_after_a_readme_section(tmp_path: Path) -> None:
    docs = tmp_path / "acme"
    sdk_folder(
        docs, "typescript", '<div align="center"><h3>Acme SDK</h3></div>\n\n## Setup\n\n# Development\n'
    )
    sdk_folder(docs, "python", "# Acme Python Client\n\nText.\n")
    text = instructions(docs)
    assert text.startswith("Documentation of acme (")
    assert "Development" not in text and "Python Client" not in text


def test_package_metadata_names_the_docs_one_name_when_the_sdk_packages_agree(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    sdk_folder(docs, "typescript", "# Development\n")
    sdk_folder(docs, "python", "# Development\n")
    sdk_folder(docs, "go", "# Development\n")
    (docs / "typescript" / "package.json").write_text('{"name": "acme", "description": "Acme for TS"}')
    (docs / "python" / "pyproject.toml").write_text('[project]\nname = "acme-python"\n')
    (docs / "go" / "go.mod").write_text("module github.com/acme/acme-go\n\ngo 1.22\n")
    assert instructions(docs).startswith("Documentation of acme (")
    (docs / "go" / "go.mod").write_text("module github.com/acme/widgets-go\n")
    assert package_names([docs / "typescript", docs / "go"]) == "acme, github.com/acme/widgets-go"


def test_a_docs_folder_takes_its_repositorys_package_name_or_folder_name(tmp_path: Path) -> None:
    docs = tmp_path / "widgetlib" / "docs"
    docs.mkdir(parents=True)
    (docs / "guide.md").write_text("# Guide\n\nText.\n")
    assert instructions(docs).startswith("Documentation of widgetlib (")
    (tmp_path / "widgetlib" / "pyproject.toml").write_text('[project]\nname = "widget-lib"\n')
    assert instructions(docs).startswith("Documentation of widget-lib (")
    (docs / "index.md").write_text("# Contributing\n\nHow to help.\n")
    assert instructions(docs).startswith("Documentation of widget-lib (")


@pytest.mark.parametrize(
    ("where", "name"),
    [(".", "mkdocs.yml"), ("..", "book.toml"), ("../..", ".gitbook.yaml"), ("../../..", "astro.config.mjs")],
)
def test_a_generator_config_in_or_up_to_three_folders_above_is_a_sign(
    tmp_path: Path, where: str, name: str
) -> None:
    docs = tmp_path / "a" / "b" / "c" / "docs"
    docs.mkdir(parents=True)
    (docs / "page.md").write_text("# Page\n")
    assert generator_sign(docs, []) is None
    (docs / where / name).resolve().write_text("x")
    assert generator_sign(docs, []) == f"the site generator file {(Path(where) / name).as_posix()}"


@pytest.mark.parametrize(
    "page",
    [
        "!!! note\n    Hello.\n",
        ":::tip\nHello.\n:::\n",
        "{{< alert >}}Hi{{< /alert >}}\n",
        "{% hint style='info' %}\nHi\n{% endhint %}\n",
        "```rust\n{{#include ../listing.rs}}\n```\n",
        "<Tabs>\n<TabItem value='a'>A</TabItem>\n</Tabs>\n",
        "```{note}\nHello.\n```\n",
        "::: acme.client.Client\n",
    ],
)
def test_generator_syntax_outside_code_is_a_sign(tmp_path: Path, page: str) -> None:
    outline = scan("page.md", f"# Page\n\n{page}")
    assert outline.generator_syntax.startswith("line ")
    assert generator_sign(tmp_path, [outline]) == f"generator syntax in page.md ({outline.generator_syntax})"


def test_code_that_looks_like_generator_syntax_is_no_sign(tmp_path: Path) -> None:
    page = (
        "# SDK\n\n```ts\nimport { Acme } from 'acme';\n:::warning\n```\n\n- step\n\n  ```js\n  !!! x\n  ```\n"
    )
    assert scan("README.md", page).generator_syntax == ""
    (tmp_path / "guide.mdx").write_text("# Guide\n")
    assert generator_sign(tmp_path, []) == "a page only a site generator reads (guide.mdx)"
