"""The parsers the command groups share (:mod:`mindsport.cli.options`): what they read, and the
error that names the option and the text when they cannot."""

from __future__ import annotations

import pytest

from mindsport.cli.options import (
    OptionError,
    parse_bot_specs,
    parse_counts,
    parse_levels,
    parse_names,
    parse_numbers,
    parse_scores,
    parse_settings,
    parse_tables,
)
from mindsport.errors import MindsportError


def test_numbers_ignore_spaces_and_empty_items() -> None:
    assert parse_numbers("-2, -1,1,2,", "--scores") == [-2.0, -1.0, 1.0, 2.0]
    assert parse_numbers("0.96,0.91,0.79", "--centre") == [0.96, 0.91, 0.79]
    with pytest.raises(OptionError, match=r"--scores must be comma-separated numbers, got 'a,b'"):
        parse_numbers("a,b", "--scores")
    with pytest.raises(OptionError, match="--probs is empty"):
        parse_numbers(" , ", "--probs")


def test_levels_and_counts_are_whole_numbers_in_range() -> None:
    assert parse_levels("0,50,100", "--landlords") == [0, 50, 100]
    assert parse_counts("10,20", "--players") == [10, 20]
    for bad in ("0,500", "1.5", "nan", "-1"):
        with pytest.raises(OptionError, match="--landlords must be bot levels between 0 and 100"):
            parse_levels(bad, "--landlords")
    for bad in ("0", "2.5", "inf"):
        with pytest.raises(OptionError, match="--players must be positive integers"):
            parse_counts(bad, "--players")


def test_names_strip_and_need_one() -> None:
    assert parse_names(" a, b ,,c", "--players") == ["a", "b", "c"]
    with pytest.raises(OptionError, match="team 1: expected comma-separated player ids, got ','"):
        parse_names(",", "team 1", "player ids")


def test_bot_specs_keep_commas_inside_quotes_and_read_bare_levels() -> None:
    text = 'strong,cmd:"python bot.py --x 1,2", 40'
    assert parse_bot_specs(text, "--bots") == ["strong", "cmd:python bot.py --x 1,2", "40"]
    assert parse_bot_specs(text, "--bots", bare_levels=True)[2] == "level:40"
    with pytest.raises(OptionError, match=r"--bots: .*unclosed double quote"):
        parse_bot_specs('cmd:"python', "--bots")
    with pytest.raises(OptionError, match=r"--farmers: .*names no bot"):
        parse_bot_specs(" , ", "--farmers")


def test_settings_are_name_value_pairs() -> None:
    assert parse_settings(["tau=0.5", " k =32"], "--param") == [("tau", "0.5"), ("k", "32")]
    with pytest.raises(OptionError, match=r"--param 'tau': expected NAME=VALUE"):
        parse_settings(["tau"], "--param")
    with pytest.raises(OptionError, match=r"--param '=1': expected NAME=VALUE"):
        parse_settings(["=1"], "--param")


def test_scores_and_tables_of_an_event() -> None:
    assert parse_scores("2,-1,-1;-2,1,1") == [[2, -1, -1], [-2, 1, 1]]
    with pytest.raises(OptionError, match=r"board 2 \('2,x'\) is not three numbers L,F1,F2"):
        parse_scores("2,-1,-1;2,x")
    assert parse_tables("a,b,c; d,e,f;") == [["a", "b", "c"], ["d", "e", "f"]]
    assert parse_tables("a,,c") == [["a", "", "c"]]  # the event refuses the empty seat by name


def test_an_option_error_is_a_mistake_of_the_user() -> None:
    assert issubclass(OptionError, MindsportError) and issubclass(OptionError, ValueError)
