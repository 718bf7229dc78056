"""The Acme client."""

from acme.base import Base

raise RuntimeError("docs-mcp must read this package statically, never import it")


class Client(Base):
    """Talks to one Acme server.

    Example:
        ```python
        client = Client("https://acme.example")
        client.send("hello")
        ```
    """

    timeout: float = 5.0
    """Seconds to wait for an answer."""

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        self.url = url

    def send(self, request: str, retries: int = 3) -> str:
        """Send a request and wait for its answer.

        Args:
            request: The request body.
            retries: How many times a failed send is tried again.

        Returns:
            The answer body.

        Raises:
            TimeoutError: No answer came within the client's timeout.
        """
        return request

    def close(self) -> None:
        pass

    def _reconnect(self) -> None:
        """A private helper."""
