"""Provenance of a model's figures (leaderboard.methodology.provenance), by hand."""

from __future__ import annotations

import math
import random
from collections import defaultdict

import pytest

from leaderboard.methodology import nir
from leaderboard.methodology.provenance import (
    AccountGroup,
    account_shares,
    is_concentrated,
    model_provenance,
)
from leaderboard.methodology.stats import CONCENTRATION_SHARE, wilson_interval

ONE_STRATUM = ("general_assistant", "newcomer")


def test_it_gives_the_closed_form_nir_from_counts_alone():
    rng = random.Random(7)
    strata = [("a", "newcomer"), ("b", "newcomer"), ("a", "power"), (None, "anonymous")]
    ys, models, keys = [], [], []
    for _ in range(400):
        models.append(rng.choice("xyz"))
        keys.append(rng.choice(strata))
        ys.append(float(rng.random() < 0.3 + 0.2 * (models[-1] == "x")))
    counts = defaultdict(lambda: [0, 0])
    for y, model, stratum in zip(ys, models, keys, strict=True):
        counts[(model, stratum)][0] += 1
        counts[(model, stratum)][1] += int(y)

    from_sessions = nir.nir_closed_form_all(ys, models, keys)
    from_counts = nir.nir_closed_form_counts({k: tuple(v) for k, v in counts.items()})

    for model in "xyz":
        for name in ("value", "null_mean", "null_sd", "low", "high", "p_value"):
            got, want = getattr(from_counts[model], name), getattr(from_sessions[model], name)
            assert got == pytest.approx(want, abs=1e-12), (model, name)


def test_it_calls_a_model_concentrated_only_strictly_above_the_share():
    assert CONCENTRATION_SHARE == 0.5
    assert not is_concentrated(0.5)
    assert is_concentrated(0.5 + 1e-9)
    assert not is_concentrated(None)


def test_it_orders_accounts_by_sessions_then_id():
    groups = [
        AccountGroup("m", 9, ONE_STRATUM, 2, 1),
        AccountGroup("m", 3, ONE_STRATUM, 2, 0),
        AccountGroup("m", 5, ("b", "newcomer"), 1, 1),
        AccountGroup("m", 5, ONE_STRATUM, 3, 1),
    ]
    shares = account_shares(groups)["m"]
    assert [(s.account, s.sessions, s.confirmed) for s in shares] == [
        (5, 4, 2),
        (3, 2, 0),
        (9, 2, 1),
    ]
    assert [s.share for s in shares] == [0.5, 0.25, 0.25]


def test_it_recomputes_the_headline_without_the_largest_account_as_by_hand():
    # alpha: account 1 has 3 sessions (2 confirmed), account 2 has 1 (confirmed);
    # beta: account 2 has 4 sessions (1 confirmed). One stratum.
    groups = [
        AccountGroup("alpha", 1, ONE_STRATUM, 3, 2),
        AccountGroup("alpha", 2, ONE_STRATUM, 1, 1),
        AccountGroup("beta", 2, ONE_STRATUM, 4, 1),
    ]
    alpha = model_provenance(groups)["alpha"]
    assert (alpha["accounts"], alpha["largest_share"], alpha["concentrated"]) == (2, 0.75, True)

    # Without account 1: alpha 1 session (1 yes), beta 4 (1 yes): N = 5, μ = 0.4,
    # σ² = 0.24. mean_alpha = 1, overall 0.4: observed 0.6; E[mean_alpha] = μ = 0.4, so
    # the null mean is 0 and NIR = 0.6; Var = 1·0.24·(5 − 1)/(5 − 1)/1² = 0.24.
    without = alpha["without_largest"]
    assert without["sessions"] == 1
    assert without["net_improvement"]["value"] == pytest.approx(0.6)
    assert without["net_improvement"]["null_mean"] == pytest.approx(0.0)
    assert without["net_improvement"]["null_sd"] == pytest.approx(math.sqrt(0.24))
    assert without["net_improvement"]["low"] == pytest.approx(0.6 - 1.96 * math.sqrt(0.24))
    low, high = wilson_interval(1, 1)
    assert without["confirmed_success"] == {"value": 1.0, "low": low, "high": high, "n": 1}


def test_it_leaves_no_figure_when_one_account_holds_every_session():
    groups = [
        AccountGroup("beta", 2, ONE_STRATUM, 4, 1),
        AccountGroup("alpha", 1, ONE_STRATUM, 2, 1),
    ]
    beta = model_provenance(groups)["beta"]
    assert (beta["accounts"], beta["largest_share"], beta["concentrated"]) == (1, 1.0, True)
    without = beta["without_largest"]
    assert without["sessions"] == 0
    assert without["confirmed_success"]["value"] is None
    assert without["net_improvement"]["value"] is None


def test_it_gives_no_figure_without_the_account_when_not_concentrated():
    groups = [AccountGroup("m", 1, ONE_STRATUM, 2, 1), AccountGroup("m", 2, ONE_STRATUM, 2, 2)]
    m = model_provenance(groups)["m"]
    assert (m["concentrated"], m["without_largest"], m["largest_share"]) == (False, None, 0.5)
