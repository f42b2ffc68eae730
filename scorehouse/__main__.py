"""``python -m scorehouse``: the ``scorehouse`` command."""

from scorehouse.warehouse.cli import main

if __name__ == "__main__":
    main()
