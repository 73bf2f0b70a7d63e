"""``python -m labeler``: the same CLI as the ``labeler`` console script."""

from labeler.cli import main

if __name__ == "__main__":
    main()
