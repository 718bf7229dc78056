"""Questions about the documentation sites of ``evaldata/sites`` and the page that answers each.

Written for issue 20 (the first three sets) and issue 32 (one set per generator, and the two whose
API reference comes from source) by reading the
pages: each question is worded as a user would ask it (not copied from a heading), and its gold page
is the one a reader of the site would open. Shared by the tests
(gold page in the top 3) and the closing note's before/after measurement (``measure_sites.py``).
"""

from __future__ import annotations

# set -> (site name the config declares, [(question, gold page path relative to the docs folder)])
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
    "vitest": (
        "Vitest",
        [
            ("measure code coverage with v8 or istanbul", "guide/coverage.md"),
            ("update stored snapshots after a change", "guide/snapshot.md"),
            ("run test files in parallel across workers", "guide/parallelism.md"),
        ],
    ),
    "expressive-code": (
        "Expressive Code",
        [
            ("show line numbers in code blocks", "plugins/line-numbers.mdx"),
            ("collapse some lines of a code block", "plugins/collapsible-sections.mdx"),
            ("use a VS Code color theme for code", "guides/themes.mdx"),
        ],
    ),
    "swr": (
        "SWR",
        [
            ("load pages of data with useSWRInfinite", "docs/pagination.en-US.mdx"),
            ("retry a request after an error", "docs/error-handling.en-US.mdx"),
            (
                "fetch only when the key is ready (conditional fetching)",
                "docs/conditional-fetching.en-US.mdx",
            ),
        ],
    ),
    "cline": (
        "Cline",
        [
            ("restore a checkpoint to undo the changes Cline made", "core-workflows/checkpoints.mdx"),
            ("keep Cline from reading some files with .clineignore", "customization/clineignore.mdx"),
            ("switch between plan mode and act mode", "core-workflows/plan-and-act.mdx"),
        ],
    ),
    "docsy": (
        "Docsy",
        [
            ("deploy the site to Netlify", "docs/deployment/netlify.md"),
            ("add offline search or Algolia search to the site", "docs/content/search.md"),
            ("translate the site into several languages", "docs/language.md"),
        ],
    ),
    "async-book": (
        "Asynchronous Programming in Rust",
        [
            ("run several futures at once with join!", "06_multiple_futures/02_join.md"),
            ("how does a waker tell the executor a future can make progress", "02_execution/03_wakeups.md"),
            ("why do futures need to be pinned", "part-reference/pinning.md"),
        ],
    ),
    "devtron": (
        "Introduction to Devtron",
        [
            ("uninstall Devtron from the cluster", "setup/install/uninstall-devtron.md"),
            ("add a container registry", "user-guide/global-configurations/container-registries.md"),
            ("configure single sign-on login", "user-guide/global-configurations/sso-login.md"),
        ],
    ),
    "flask": (
        "Flask",
        [
            ("register a blueprint on the application", "blueprints.rst"),
            ("load configuration from an environment variable", "config.rst"),
            ("send requests to the app in tests with the test client", "testing.rst"),
        ],
    ),
    "openai-agents": (
        "OpenAI Agents SDK",
        [
            ("set up input guardrails for an agent", "guardrails.md"),
            ("stream events while an agent runs", "streaming.md"),
            ("trace the runs of an agent", "tracing.md"),
        ],
    ),
}

# set -> its docs folder (what ``--docs-dir`` points at) and its generator
DOCS: dict[str, tuple[str, str]] = {
    "httpx": ("docs", "mkdocs"),
    "typer": ("docs", "mkdocs"),
    "testing-library": ("docs", "docusaurus"),
    "vitest": ("docs", "vitepress"),
    "expressive-code": ("docs/src/content/docs", "starlight"),
    "swr": ("pages", "nextra"),
    "cline": ("docs", "mintlify"),
    "docsy": ("docsy.dev/content/en", "hugo"),
    "async-book": ("src", "mdbook"),
    "devtron": ("docs", "gitbook"),
    "flask": ("docs", "sphinx"),
    "openai-agents": ("docs", "mkdocs"),
}
