"""A whole-history league in the store on the ATP singles history: what a post costs.

Loads the ATP tour (195,000 matches) into a ``trueskill-history`` league of a scratch SQLite
file, all but the last month in one post (the graph built, every curve written), then posts the
last month (the graph re-converged from where it stood, the moved players' curves rewritten),
then a late post (a week of results from 2000 that arrives last), then ``recompute``. Beside each
post: the in-memory ``SkillHistory.add`` of the same matches, so the ratio is what the store adds
(reading and writing the derived rows in the transaction).

    python benchmarks/store_history.py [--data DIR] [--matches N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from mindsport.history import read_matches
from mindsport.rating.through_time.model import TrueSkillThroughTime
from mindsport.store import Store

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SETTINGS = {"drift": 0.02, "draw_probability": 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--matches", type=int, default=0, help="only the first N matches (0: all)")
    args = ap.parse_args()
    matches = read_matches(args.data / "tennis_atp")
    if args.matches:
        matches = matches[: args.matches]
    last = matches[-1].time
    month = [m for m in matches if (m.time.year, m.time.month) == (last.year, last.month)]
    late = [m for m in matches if m.time.year == 2000 and m.time.month == 6][:200]
    held = {m.id for m in month} | {m.id for m in late}
    first = [m for m in matches if m.id not in held]
    model = TrueSkillThroughTime(**SETTINGS)
    model.history(matches[:200])  # compile the kernels
    print(f"ATP: {len(matches)} matches; settings {SETTINGS}; load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp, Store(os.path.join(tmp, "atp.db")) as st:
        st.create_league("atp", "trueskill-history", SETTINGS)
        h = model.history()
        for name, post in (
            ("all but the last month, graph built", first),
            ("the last month", month),
            ("a late week of 2000", late),
        ):
            w = time.perf_counter()
            h.add(post)
            t_mem = time.perf_counter() - w
            w = time.perf_counter()
            st.add_matches("atp", post)
            t_store = time.perf_counter() - w
            print(
                f"  post of {name} ({len(post)} matches): store {t_store:.2f} s, "
                f"in memory add {t_mem:.2f} s ({t_store / t_mem:.1f}x)"
            )
        w = time.perf_counter()
        st.recompute("atp")
        print(f"  recompute: {time.perf_counter() - w:.2f} s; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
