"""``python -m forge_cli``: the ``forge`` command, for environments without its console script."""

from forge_cli.cli.entry import main

if __name__ == "__main__":
    main()
