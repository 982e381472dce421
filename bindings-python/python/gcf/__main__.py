"""``python -m gcf``: the console script."""

from .cli import main

main()
