"""What every ``mindsport`` command group shares: the error boundary and the app settings.

The error boundary (:class:`Boundary`, the click group class of every typer app made by
:func:`new_app`) is the one place where exceptions become exit statuses:

* a mistake of the user (:class:`~mindsport.errors.MindsportError`, a bad option or argument, a
  file-system error naming a path): one line ``error: ...`` on stderr naming the input and the
  fix, exit status 2;
* an internal failure (anything else, :class:`~mindsport.errors.InternalError` included): the
  traceback and a line asking for a report, exit status 70 (``EX_SOFTWARE``);
* Ctrl-C: ``interrupted``, exit status 130.

Commands therefore raise and never print errors themselves. Help is plain text
(``rich_markup_mode=None``): option texts keep their square brackets and show their defaults.
The options and parsers the groups share are in :mod:`mindsport.cli.options`.

This module imports only typer: ``mindsport --help`` must stay fast, so every command
imports what it computes with inside its body.
"""

from __future__ import annotations

import errno
import sys
import traceback
from collections.abc import Sequence
from typing import Any

import typer
from typer._click.exceptions import NoArgsIsHelpError, UsageError  # typer's own click
from typer.core import TyperGroup

from mindsport.errors import MindsportError, file_error

__all__ = ["EXIT_INTERNAL", "EXIT_USAGE", "Boundary", "new_app"]

#: exit status of a user mistake (bad input, bad option, unusable file or database)
EXIT_USAGE = 2
#: exit status of an internal failure (``EX_SOFTWARE`` of sysexits.h)
EXIT_INTERNAL = 70
#: exit status after Ctrl-C (128 + SIGINT)
EXIT_INTERRUPTED = 130

_REPORT = (
    "mindsport {version}: internal error (a bug, not a mistake in your input); please report "
    "it with the traceback above and the command that caused it"
)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _say(text: str) -> None:
    typer.echo(f"error: {_one_line(text)}", err=True)


def _version() -> str:
    from mindsport import __version__

    return __version__


def run_guarded(command: TyperGroup, main: Any, *args: Any, **kwargs: Any) -> int:
    """Run ``main(*args, standalone_mode=False, **kwargs)`` and turn what it raises into an
    exit status, printing the message (see the module docstring)."""
    try:
        rv = main(*args, standalone_mode=False, **kwargs)
        return rv if isinstance(rv, int) else 0
    except NoArgsIsHelpError as exc:
        exc.show()
        return exc.exit_code
    except UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else command.name
        _say(f"{exc.format_message()} (see '{where} --help')")
        return EXIT_USAGE
    except typer.Abort:
        typer.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except typer.TyperException as exc:  # click's other errors (an unreadable file argument)
        _say(exc.format_message())
        return EXIT_USAGE
    except MindsportError as exc:
        _say(str(exc))
        return EXIT_USAGE
    except OSError as exc:
        if exc.errno == errno.EPIPE:  # the reader of our output went away (| head)
            return 1
        # the environment refused a path the user gave (a missing program of a cmd: bot, a
        # folder that vanished): a mistake to fix, not a bug
        _say(str(file_error(exc)))
        return EXIT_USAGE
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except Exception:
        traceback.print_exc()
        sys.stderr.flush()
        typer.echo(_REPORT.format(version=_version()), err=True)
        return EXIT_INTERNAL


class Boundary(TyperGroup):
    """A typer group whose :meth:`main` is the error boundary of the command line."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        code = run_guarded(
            self,
            super().main,
            args=args,
            prog_name=prog_name,
            complete_var=complete_var,
            **extra,
        )
        if standalone_mode:
            sys.exit(code)
        return code


def new_app(help: str, *, name: str | None = None, **settings: Any) -> typer.Typer:
    """A typer app with the settings every ``mindsport`` command group shares: the error
    boundary, plain-text help (no markup: square brackets stay), help when called bare."""
    settings.setdefault("no_args_is_help", True)
    return typer.Typer(
        name=name,
        help=help,
        cls=Boundary,
        rich_markup_mode=None,
        add_completion=False,
        pretty_exceptions_enable=False,
        **settings,
    )
