"""The copy groups after a few files changed, from the last build's (``corpus/copy_changes.py``), are
those compared in full: random edits of a folder of READMEs, their PyPI twins, per-package copies and
look-alikes, each step checked."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.copies import CopyFinder, copy_groups
from docs_mcp.corpus.copy_changes import CopyState, file_digests, regroup
from docs_mcp.corpus.copy_map import Grouping
from docs_mcp.corpus.loader import load_corpus
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(300)

README = (
    "# Acme {lang} Client\n\n## Retries\n\nPass a RetryConfig to retry failed calls with exponential "
    "backoff: the initial interval, the maximum interval and the exponent.\n\n"
    "## Pagination\n\nCall next() on a page of {op} results.\n"
)
MODEL = "# {name}\n\n## Fields\n\n| Field | Type |\n| --- | --- |\n| `id` | str |\n| `{field}` | {kind} |\n"
CONTENTS = [
    README.format(lang="Python", op="links.list"),
    README.format(lang="Python", op="tags.list"),
    README.format(lang="Go", op="links.list").replace("exponent", "jitter and a cap on the attempts"),
    MODEL.format(name="Link", field="url", kind="str"),
    MODEL.format(name="Link", field="url", kind="int"),
    MODEL.format(name="Tag", field="url", kind="str"),
    MODEL.format(name="Link", field="owner", kind="User"),
    "# Link\n\n## Fields\n\nSee the guide.\n",
    # A package's own title: a copy by place (the headings below the title), not by name; so a group
    # can join sections by name and by place, and an edit reach past the blocks it falls in.
    MODEL.format(name="Azure Link", field="url", kind="str"),
    MODEL.format(name="Azure Link", field="url", kind="str"),
    MODEL.format(name="Link", field="url", kind="str"),
]
PLACES = [
    "sdk/README.md",
    "sdk/README-PYPI.md",
    "sdk/packages/azure/README.md",
    "sdk/docs/models/link.md",
    "sdk/packages/azure/docs/models/link.md",
    "sdk/packages/gcp/docs/models/link.md",
    "other/docs/models/link.md",
    "other/docs/models/tag.md",
    "sdk/docs/models/tag.md",
    "sdk/packages/gcp/docs/models/tag.md",
]


def _groups(grouping: Grouping, chunks: list[Chunk]) -> list[tuple[str, list[str], list[str]]]:
    """Each group of ``grouping`` (over ``chunks``' sections): its main copy, its members and its
    other leads, sorted; comparable whatever the groups' numbers."""
    ids = [chunk.id for chunk in chunks if chunk.text.strip()]
    members: dict[int, list[str]] = {}
    for number, group in enumerate(grouping.group.tolist()):
        if group >= 0:
            members.setdefault(group, []).append(ids[number])
    return sorted(
        (grouping.mains[group], sorted(found), sorted(grouping.leads[group]))
        for group, found in members.items()
    )


def _as_lists(groups: list[list[str]]) -> list[tuple[str, list[str]]]:
    return sorted((group[0], sorted(group)) for group in groups)


def _finder(chunks: list[Chunk], folder: Path) -> CopyFinder:
    finder = CopyFinder(folder)
    for chunk in chunks:
        finder.add(chunk)
    return finder


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_groups_regrouped_after_random_edits_are_those_compared_in_full(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    files = {place: rng.choice(CONTENTS) for place in PLACES if rng.random() < 0.7}
    docs = tmp_path / "docs"
    previous: CopyState | None = None
    changed: set[str] = set()
    regrouped_some = 0
    for _ in range(25):
        shutil.rmtree(docs, ignore_errors=True)
        chunks = load_corpus(write_docs(docs, files)).chunks
        with _finder(chunks, tmp_path) as finder:
            full = finder.grouping()
            assert [(main, found) for main, found, _ in _groups(full, chunks)] == _as_lists(
                copy_groups(chunks)
            )
            state = CopyState(finder.hashes(), full)
            if previous is not None:
                again = CopyState(finder.hashes(), regroup(finder, previous, changed))
                assert _groups(again.grouping, chunks) == _groups(full, chunks), changed
                regrouped_files, regrouped_digests = file_digests(again)
                full_files, full_digests = file_digests(state)
                assert np.array_equal(regrouped_files, full_files)
                assert np.array_equal(regrouped_digests, full_digests)
                regrouped_some += bool(full.mains)
            saved = state.save(tmp_path / "copies.npz")
            loaded = CopyState.load(tmp_path / "copies.npz", saved)
            assert loaded is not None and _groups(loaded.grouping, chunks) == _groups(full, chunks)
            previous = loaded
        changed = set()
        for place in rng.sample(PLACES, rng.randint(1, 3)):  # edited, added or removed
            changed.add(place)
            if place in files and rng.random() < 0.3:
                del files[place]
            else:
                files[place] = rng.choice(CONTENTS)
    assert regrouped_some > 10  # the edits did leave copies to find


def test_an_edit_regroups_the_sections_its_group_joined_through_blocks_it_does_not_fall_in(
    tmp_path: Path,
) -> None:
    """``other``'s page is a copy of ``sdk``'s by name, which is a copy of its package's by place (the
    package's page has a title of its own): one group. Edited away, ``other``'s page falls only in the
    by-name block; the by-place pair is still a group, found again through the closure."""
    link, azure = (
        MODEL.format(name="Link", field="url", kind="str"),
        MODEL.format(name="Azure Link", field="url", kind="str"),
    )
    files = {"other/docs/models/link.md": link, "sdk/docs/models/link.md": link}
    files["sdk/packages/azure/docs/models/link.md"] = azure
    found = []
    previous: CopyState | None = None
    for step in range(2):
        chunks = load_corpus(write_docs(tmp_path / f"docs-{step}", files)).chunks
        with _finder(chunks, tmp_path) as finder:
            full = finder.grouping()
            if previous is not None:
                again = regroup(finder, previous, {"other/docs/models/link.md"})
                assert _groups(again, chunks) == _groups(full, chunks)
            previous = CopyState(finder.hashes(), full)
            found.append([members for _, members, _ in _groups(full, chunks)])
        files["other/docs/models/link.md"] = "# Link\n\n## Fields\n\nSee the guide.\n"
    assert [len(group) for group in found[0]] == [3]
    assert found[1] == [
        ["sdk/docs/models/link.md#link/fields", "sdk/packages/azure/docs/models/link.md#azure-link/fields"]
    ]


def test_a_state_that_is_not_the_recorded_one_is_not_read(tmp_path: Path) -> None:
    empty = np.zeros(0, dtype=np.uint64)
    grouping = Grouping(np.zeros(0, dtype=np.int32), empty, empty, [], [])
    state = CopyState(
        {name: np.zeros(0, dtype=np.int64) for name in ("name", "place", "files", "ids")}, grouping
    )
    digest = state.save(tmp_path / "copies.npz")
    assert CopyState.load(tmp_path / "copies.npz", digest) is not None
    (tmp_path / "copies.json").write_text('[["a#b"], [[]]]')
    assert CopyState.load(tmp_path / "copies.npz", digest) is None
    assert CopyState.load(tmp_path / "missing.npz", digest) is None
