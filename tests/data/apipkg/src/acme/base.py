"""Base classes."""


class Base:
    """The base of every Acme object."""

    def ping(self, payload: bytes = b"") -> float:
        """Measure the round trip to the server.

        Parameters
        ----------
        payload : bytes
            Bytes sent and echoed back.

        Returns
        -------
        float
            The round trip in seconds.
        """
        return 0.0
