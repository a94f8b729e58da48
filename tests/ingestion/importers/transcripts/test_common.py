"""What transcript formats share: redaction, turn assembly and the split by model."""

from __future__ import annotations

from ingestion.importers.transcripts.common import (
    MAX_BARE_NAMES,
    Call,
    Redactor,
    Result,
    Turn,
    TurnBuilder,
    home_owner,
    part_id,
    split_by_model,
)


def test_it_redacts_every_home_path_form():
    redactor = Redactor(["mira.chen"])
    assert redactor.text(
        "/home/mira.chen/a /Users/bob/b C:\\Users\\carol\\c C:/Users/dan/d "
        "C:\\\\Users\\\\erin\\\\e ~frank/f -Users-gus-proj C--Users-hal-proj ~/g"
    ) == (
        "/home/<user>/a /Users/<user>/b C:\\Users\\<user>\\c C:/Users/<user>/d "
        "C:\\\\Users\\\\<user>\\\\e ~<user>/f -Users-<user>-proj C--Users-<user>-proj ~/g"
    )


def test_it_redacts_a_known_owner_as_a_word_but_not_generic_accounts_or_flags():
    redactor = Redactor(["mira.chen", "dev", "ubuntu"])
    assert redactor.text("mira.chen staff 24276 README.md") == "<user> staff 24276 README.md"
    assert redactor.text("git log --author=mira.chenx; dev ubuntu") == (
        "git log --author=mira.chenx; dev ubuntu"
    )
    assert redactor.text("git config --home-dir x") == "git config --home-dir x"
    assert redactor.value({"/home/ann/k": ["/home/ann/v", 3]}) == {
        "/home/<user>/k": ["/home/<user>/v", 3]
    }


def test_only_the_longest_owners_are_redacted_as_bare_words_but_every_path_is():
    # Thousands of owners would make every text cost thousands of times its length.
    owners = [f"owner{n:04d}" for n in range(2_000)] + ["a-much-longer-owner-name"]
    redactor = Redactor(owners)
    assert redactor.text("by a-much-longer-owner-name") == "by <user>"
    assert redactor.text("/home/owner1999/x and owner1999") == "/home/<user>/x and owner1999"
    assert redactor.text("owner0001 " * 5_000) == "<user> " * 5_000
    assert len(owners) > MAX_BARE_NAMES


def test_it_finds_the_home_owner_of_a_path():
    assert home_owner("/Users/jeyeng/Desktop/APP") == "jeyeng"
    assert home_owner("C:\\Users\\Mira\\src") == "Mira"
    assert home_owner("/srv/app") is None
    assert home_owner(None) is None


def test_it_merges_parts_by_message_id_and_adds_corrections_for_rejections():
    builder = TurnBuilder()
    builder.words("Fix it")
    builder.assistant("m1", "opus", ["Looking."], [Call("c1", "Bash", {"command": "make"})])
    builder.assistant("m1", "opus", [], [Call("c2", "Bash", {"command": "rm -rf build"})])
    builder.result(Result("c1", 2))
    builder.result(Result("c2", None, rejected=True))
    builder.result(Result("c-unknown", 0))

    turns = builder.finished()

    assert [(t.role, t.text, t.label) for t in turns] == [
        ("user", "Fix it", None),
        ("assistant", "Looking.", None),
        ("user", "[rejected the Bash call]", "correction"),
    ]
    assert [(c.call_id, c.exit_code) for c in turns[1].calls] == [("c1", 2), ("c2", None)]


def test_user_turns_stay_with_the_work_they_react_to():
    user = lambda text: Turn("user", text)  # noqa: E731
    said = lambda model: Turn("assistant", "ok", model=model)  # noqa: E731
    turns = [user("a"), said("opus"), said(None), user("b"), said("sonnet"), user("c")]

    parts = split_by_model(turns)

    assert [(model, [t.text for t in part]) for model, part in parts] == [
        ("opus", ["a", "ok", "ok", "b"]),
        ("sonnet", ["ok", "c"]),
    ]
    assert (part_id("s", 1), part_id("s", 2), len(part_id("x" * 300, 3))) == ("s", "s~2", 302)
