"""Questions about the three documentation sites of ``evaldata/sites`` and the page that answers each.

Written for issue 20 by reading the pages: each question is worded as a user would ask it (not copied
from a heading), and its gold page is the one a reader of the site would open. Shared by the tests
(gold page in the top 3) and the closing note's before/after measurement (``measure_sites.py``).
"""

from __future__ import annotations

# set -> (site name the config declares, [(question, gold page path relative to docs/)])
SITES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "httpx": (
        "HTTPX",
        [
            ("set a default timeout for every request a client makes", "advanced/timeouts.md"),
            ("send requests through an HTTP proxy", "advanced/proxies.md"),
            ("enable HTTP/2 support", "http2.md"),
            ("run a function on every request and response with event hooks", "advanced/event-hooks.md"),
            ("verify SSL certificates with a custom CA bundle", "advanced/ssl.md"),
            ("limit the maximum number of connections in the pool", "advanced/resource-limits.md"),
            ("mock a web application in tests with a custom transport", "advanced/transports.md"),
        ],
    ),
    "typer": (
        "Typer",
        [
            ("add help text to a CLI option", "tutorial/options/help.md"),
            ("ask the user for a password without echoing it", "tutorial/options/password.md"),
            ("show a progress bar while processing items", "tutorial/progressbar.md"),
            ("read a CLI argument from an environment variable", "tutorial/arguments/envvar.md"),
            ("combine several Typer apps as subcommands with add_typer", "tutorial/subcommands/add-typer.md"),
            ("test a Typer application with CliRunner", "tutorial/testing.md"),
            ("accept a choice from an Enum", "tutorial/parameter-types/enum.md"),
        ],
    ),
    "testing-library": (
        "Testing Library",
        [
            ("wait for an element to disappear from the page", "guide-disappearance.mdx"),
            ("find an element by its accessible role", "queries/byrole.mdx"),
            ("use jest fake timers with testing library", "guides-using-fake-timers.mdx"),
            ("type text into an input with user-event keyboard", "user-event/api-keyboard.mdx"),
            ("custom render function that wraps providers", "react-testing-library/setup.mdx"),
            ("find an element by data-testid", "queries/bytestid.mdx"),
            ("migrate tests from Enzyme", "react-testing-library/migrate-from-enzyme.mdx"),
        ],
    ),
}
