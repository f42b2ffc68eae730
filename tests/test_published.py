"""The systems each audience sees (warehouse/published.py ``visible_systems``): while pages are
rendered they are read once per audience and taken from those rows, which must be, for every
task, audience and leaderboard shadow, the rows the query gives; and nothing of them outlives
the rendering."""

from __future__ import annotations

import duckdb
import pytest
from polars.testing import assert_frame_equal

from scorehouse.warehouse import published
from scorehouse.warehouse.db import apply_schema
from scorehouse.warehouse.families import sql_folders
from scorehouse.warehouse.published import (
    PUBLIC,
    Audience,
    leaderboards_as_seen,
    rendering_for,
    visible_systems,
)

PARTICIPANTS = [("c", "pub", "Public Lab", "public", False, "P-0001"),
                ("c", "anon", "Anonymous Team", "anonymous", False, "P-0002"),
                ("c", "hid", "Withheld Institute", "withheld", False, "P-0003"),
                ("c", "org", "Organisers", "public", True, "P-0004"),
                ("other", "pub", "Elsewhere", "public", False, "P-0005")]
SYSTEMS = [("c", "t1", "pub-a", "pub", "pub-a", False, False),
           ("c", "t1", "anon-a", "anon", "P-0002-1", False, False),
           ("c", "t1", "hid-a", "hid", None, False, False),
           ("c", "t1", "org-a", "org", "org-a", True, False),
           ("c", "t1", "baseline", "baseline", "Baseline", False, True),
           ("c", "t2", "hid-b", "hid", None, False, False),
           ("c", "t2", "pub-b", "pub", "pub-b", False, False),
           ("c", "t3", "hid-c", "hid", None, False, False),
           ("other", "t1", "pub-z", "pub", "pub-z", False, False)]
AUDIENCES = [PUBLIC, Audience("participants"), Audience("participant", "hid"),
             Audience("participant", "anon")]


@pytest.fixture
def con():
    con = duckdb.connect()
    apply_schema(con, sql_folders())
    con.executemany("INSERT INTO cat_participant VALUES (?, ?, ?, ?, ?, ?)", PARTICIPANTS)
    con.executemany("INSERT INTO cat_system (campaign, task, system, participant, label, "
                    "organiser, baseline) VALUES (?, ?, ?, ?, ?, ?, ?)", SYSTEMS)
    yield con
    con.close()


@pytest.mark.parametrize("audience", AUDIENCES, ids=lambda a: a.key)
def test_the_rendering_takes_each_tasks_systems_from_one_read(con, audience):
    with rendering_for(audience):
        for shadow in (False, True):
            with leaderboards_as_seen(con, "c") if shadow else rendering_for(audience):
                for task in ("t1", "t2", "t3", "t4", None):
                    for asked in (None, audience):
                        assert_frame_equal(visible_systems(con, "c", task, asked),
                                           published._visible(con, "c", task, audience))
                    if not audience.public:  # the public's own set, asked for by name
                        assert_frame_equal(visible_systems(con, "c", task, PUBLIC),
                                           published._visible(con, "c", task, PUBLIC))
    assert published._SEEN.get() is None
    shown = visible_systems(con, "c", "t1", audience)["system"].to_list()
    assert ("hid-a" in shown) == (audience.kind != "public" and audience.participant != "anon")
    assert "pub-z" not in shown


def test_a_system_declared_between_two_renderings_is_seen_by_the_second(con):
    with rendering_for(PUBLIC):
        before = visible_systems(con, "c", "t2")["system"].to_list()
    con.execute("INSERT INTO cat_system VALUES ('c', 't2', 'pub-c', 'pub', 'pub-c', false, false, "
                "NULL, NULL)")
    with rendering_for(PUBLIC):
        after = visible_systems(con, "c", "t2")["system"].to_list()
    assert (before, after) == (["pub-b"], ["pub-b", "pub-c"])
