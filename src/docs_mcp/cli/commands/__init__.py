"""One module per subcommand: ``register(subparsers)`` adds the parser and sets ``func``.

Conventions that keep ``docs-mcp --help`` cheap and every command startable on the base install:
the module docstring's first line is ``"``docs-mcp NAME``: what it does"`` (the summary --help lists,
read without importing the module), and the module imports its library function inside ``run``, so
importing it for ``docs-mcp NAME --help`` loads neither LanceDB nor an optional extra.
"""
