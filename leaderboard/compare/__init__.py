"""Compare two agents on one benchmark board, or two models on the signal boards.

`keys` names an agent in a query string, `selectors` reads what a comparison needs,
`compute` turns it into figures with leaderboard.methodology (paired, two_sample), and
`views` and `api` are the page and the JSON endpoint.
"""
