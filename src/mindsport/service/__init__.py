"""HTTP service: FastAPI JSON API and a server-rendered leaderboard page.

Build the app with :func:`create_app` (``create_app("sqlite:///league.db")``); nothing is opened at
import.
"""

from mindsport.service.app import create_app

__all__ = ["create_app"]
