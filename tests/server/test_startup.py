"""The collector pause around start-up: restored afterwards, and what start-up built is frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from docs_mcp.server.startup.collector import collector_paused


@pytest.fixture(autouse=True)
def _restore_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()  # give the test process its objects back
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_objects_built_during_start_up_are_frozen_out_of_later_collections() -> None:
    gc.unfreeze()
    with collector_paused():
        long_lived = [{"id": n} for n in range(1000)]
    assert gc.get_freeze_count() >= len(long_lived)


def test_the_collector_is_restored_when_start_up_fails() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("index missing")
    assert gc.isenabled()
