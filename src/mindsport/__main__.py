"""``python -m mindsport``: the same command as ``mindsport``."""

from mindsport.cli import main

if __name__ == "__main__":
    main()
