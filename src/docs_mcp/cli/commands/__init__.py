"""One module per subcommand: ``register(subparsers)`` adds the parser and sets ``func``."""
