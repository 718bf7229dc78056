"""Turn SIGTERM / SIGINT into a cancellation, so transports shut down cleanly instead of dying."""

from __future__ import annotations

import logging
import signal
from collections.abc import Sequence

import anyio
from anyio.abc import TaskStatus

logger = logging.getLogger(__name__)


async def cancel_on_signals(
    scope: anyio.CancelScope,
    signals: Sequence[signal.Signals],
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Wait for the first of ``signals`` and cancel ``scope``; ``started`` once the handlers are in place."""
    with anyio.open_signal_receiver(*signals) as received:
        task_status.started()
        async for number in received:
            logger.info("received %s, shutting down", signal.Signals(number).name)
            scope.cancel()
            return
