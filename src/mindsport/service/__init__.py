"""HTTP service: FastAPI JSON API and a server-rendered leaderboard page.

Build the app with :func:`create_app` (``create_app("sqlite:///league.db")``); nothing is opened at
import.
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.service.app import create_app

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "create_app": "mindsport.service.app",
}

lazy_exports(__name__, _EXPORTS)


__all__ = ["create_app"]
