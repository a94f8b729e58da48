"""The methodology room: every scoring rule of methodology §2 and §3, as pure functions.

Nothing in here imports Django, a model or another room of `leaderboard`: numbers and
plain dicts go in, numbers and plain dicts come out, so each rule is tested exactly and
the boards, the signal board, the pages and the benchmarks all share the one copy.

* `stats`: Wilson interval, pass^k, percentiles, cluster-robust ratio, ranks, costs.
* `nir`: the net improvement rate by randomization inference (closed form, Monte Carlo).
* `cohorts`: user cohorts from a user's session count, the NIR's second stratum.
* `labeller`: the rule-based label sets of user turns, and that stored labels win.
* `sessions`: each session's own contribution to every signal.
* `shell`: shell tools, the program a command runs, bash error episodes.
* `session_scores`: every signal-board figure of a model, from many sessions.
* `time_horizon`: METR's logistic time horizon (p50 / p80 minutes), in two modes.
* `time_horizon_bootstrap`: its hierarchical bootstrap interval (families, tasks, runs).
"""
