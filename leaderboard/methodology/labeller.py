"""Rule-based labeller for user turns that arrive without a label (methodology §3).

A bundle may label its user turns itself (`praise`, `complaint`, `correction`, or null
for "none of them"); those labels are used as they are. Only turns with no `label` key
at all reach these rules. The rules are deliberately plain keyword and phrase patterns,
so a submitter can predict them and the methodology page can list them.

Precedence, when a turn matches several families: correction > complaint > praise.
A turn that re-directs the model ("still broken, use the other config") is a
correction even when it also complains, because steerability needs the redirect and
the bundle convention ("No, use the other config file." is a correction) agrees.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PRAISE = "praise"
COMPLAINT = "complaint"
CORRECTION = "correction"
LABELS = (PRAISE, COMPLAINT, CORRECTION)

SOURCE_BUNDLE = "bundle"
SOURCE_EXTRACTOR = "extractor"


# --- rules -------------------------------------------------------------------------------
#
# Rules are phrases over lower-cased words with apostrophes removed ("don't" -> "dont").
# A phrase is slots separated by spaces; a slot lists alternatives with "|", "_" is any
# word and a trailing "?" makes the slot optional. Phrases are indexed by their first
# word, so labelling a turn is one tokenisation, one set intersection and a few anchored
# matches: a regex alternation tried at every character cost ~100 us on a long turn.

# "It doesn't work", "still not running", "did not help".
_BROKEN_VERBS = (
    "work|works|working|compile|compiles|compiling|run|runs|running|build|builds"
    "|building|help|helps|fix|fixed|fixes|load|loads|loading|start|starts|pass|passes"
)
_CORRECTION_PHRASES = (
    "instead",
    "rather than",
    "i said|meant",
    "i asked you to",
    # "I asked for the CSV" re-directs; "not what I asked for." only complains.
    "i asked for a|an|the|my|it|them|that|this|those|these",
    "i told you",
    "should|must|need|needs to? be|use|go|have|start|look|say|read|return|include",
    "not the|that|this? _ _? but|use",
    "dont|never|stop use|touch|change|modify|edit|delete|remove|run",
    "do not use|touch|change|modify|edit|delete|remove|run|add",
    # "dont add up" is an idiom, so "dont add" needs an object.
    "dont|never add a|the|any|more|it|that|this|those|these",
    "wrong file|branch|directory|folder|table|column|function|env|environment|version"
    "|one|name|path|format|port|account|database|db",
    "put it|them|that in",
    "use the? _ not|rather",
)
_COMPLAINT_PHRASES = (
    "still broken|failing|fails|wrong|not|doesnt|does|crashing|getting|seeing|have|has"
    "|missing|misaligned|off|empty|slow",
    "still the same",
    "doesnt|didnt|isnt|wont|not " + _BROKEN_VERBS,
    "does|did|is|will not " + _BROKEN_VERBS,
    "not what i asked|wanted|needed",
    "broken|broke|wrong|useless|worse|garbage|nonsense|terrible|awful|failed|fails"
    "|failing|crash|crashes|crashed|crashing|buggy|frustrating|frustrated|frustration"
    "|ugh|ughh|argh|arghh|wtf|seriously",
    "come on",
    "you keep|broke|deleted|ignored|forgot|missed",
    "this is a mess",
    "this is bad",
    "this is not right|ok|okay|good",
    "why did|would you",
    "not quite",
    "not so|very|that? great|good|helpful|right|correct|perfect",
)
# Reports of a fix ("no errors now") that would otherwise read as complaints.
_FIXED_PHRASES = (
    "no more? error|errors|crash|crashes|bug|bugs",
    "not broken",
    "no longer broken|fails|failing|crashes",
)
_PRAISE_PHRASES = (
    "thanks|thank|thx|great|perfect|awesome|excellent|amazing|fantastic|brilliant|nice"
    "|lovely|wonderful|superb|beautiful",
    "well|nicely done",
    "good job|work|stuff",
    "looks good|great|perfect",
    "works|working now|perfectly|great|fine",
    "exactly what i",
    "love it|this",
    "spot on",
    "that did it",
    "nailed it",
    "no worries|problem",
)
# After a leading "no", any of these makes the turn an instruction ("No, use py311.").
_INSTRUCTION_PHRASES = (
    "use|do|make|put|try|keep|change|switch|call|name|run|write|add|remove|revert|undo"
    "|leave|only|just",
    "go back",
    "it should",
    "i want",
    "we need",
)
_LEADING_REJECTIONS = frozenset({"no", "nope", "nah", "wait", "stop"})
# "No worries", "no problem", "no rush": friendly, not a rejection.
_NOT_A_REJECTION = frozenset({"worries", "problem", "prob", "rush", "need"})
# Words after "not" that never name something the model did.
_NOT_AN_OBJECT = frozenset({"what", "working", "work", "sure", "only", "just", "yet", "quite"})
_SENTENCE_END = frozenset({".", "!", "?", ";"})
_TOKEN = re.compile(r"\w(?:[\w./-]*\w)?|[.!?;]")


@dataclass(frozen=True)
class _Slot:
    words: frozenset[str]
    optional: bool
    wildcard: bool

    def accepts(self, word: str) -> bool:
        # A phrase never runs across the end of a sentence.
        if word in _SENTENCE_END:
            return False
        return self.wildcard or word in self.words


def _slot(spec: str) -> _Slot:
    alternatives = frozenset(spec.rstrip("?").split("|"))
    return _Slot(alternatives - {"_"}, spec.endswith("?"), "_" in alternatives)


class _PhraseSet:
    """Phrases of several families, indexed by the words their first slot accepts."""

    def __init__(self, families: dict[str, tuple[str, ...]]) -> None:
        self._by_word: dict[str, list[tuple[str, tuple[_Slot, ...]]]] = {}
        for family, phrases in families.items():
            for phrase in phrases:
                slots = tuple(_slot(spec) for spec in phrase.split())
                for word in slots[0].words:
                    self._by_word.setdefault(word, []).append((family, slots))
        self._first_words = frozenset(self._by_word)

    def families(self, words: list[str]) -> set[str]:
        """The families with at least one phrase somewhere in words."""
        found: set[str] = set()
        starts = self._first_words.intersection(words)
        if not starts:
            return found
        for i, word in enumerate(words):
            if word not in starts:
                continue
            for family, slots in self._by_word[word]:
                if family not in found and _match(words, i + 1, slots, 1):
                    found.add(family)
        return found


def _match(words: list[str], i: int, slots: tuple[_Slot, ...], k: int) -> bool:
    if k == len(slots):
        return True
    slot = slots[k]
    if i < len(words) and slot.accepts(words[i]) and _match(words, i + 1, slots, k + 1):
        return True
    return slot.optional and _match(words, i, slots, k + 1)


_FIXED = "fixed"
_INSTRUCTION = "instruction"
_RULES = _PhraseSet(
    {
        CORRECTION: _CORRECTION_PHRASES,
        COMPLAINT: _COMPLAINT_PHRASES,
        _FIXED: _FIXED_PHRASES,
        PRAISE: _PRAISE_PHRASES,
        _INSTRUCTION: _INSTRUCTION_PHRASES,
    }
)


def _words(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("'", "").replace("\u2019", ""))


# --- labelling ----------------------------------------------------------------------------


def label_user_turn(text: str, previous_assistant_text: str | None = None) -> str | None:
    """Label one user turn: "praise", "complaint", "correction" or None (none of them).

    previous_assistant_text is the assistant turn this user turn answers (None when
    there is none): a "no, ..." that answers the model's own question is not a
    correction, and "not X" where the model just did X is one.
    """
    words = _words(text or "")
    found = _RULES.families(words)
    if _is_correction(words, found, previous_assistant_text):
        return CORRECTION
    if COMPLAINT in found and _FIXED not in found:
        return COMPLAINT
    if PRAISE in found:
        return PRAISE
    return None


def _is_correction(words: list[str], found: set[str], previous: str | None) -> bool:
    if not words:
        return False
    if CORRECTION in found or words[0] == "actually":
        return True
    if _use_not_in_one_sentence(words):
        return True
    if _INSTRUCTION in found and _rejects_then_instructs(words, previous):
        return True
    return _rejects_previous_action(words, previous)


def _use_not_in_one_sentence(words: list[str]) -> bool:
    # "Use the staging credentials, not prod." names the right thing and the wrong one.
    using = False
    for word in words:
        if word in _SENTENCE_END:
            using = False
        elif word == "use":
            using = True
        elif word == "not" and using:
            return True
    return False


def _rejects_then_instructs(words: list[str], previous: str | None) -> bool:
    # A leading "no" in a turn that gives an instruction rejects what was done and says
    # what to do; but when the model has just asked a question, "no, keep them" answers
    # it.
    if words[0] not in _LEADING_REJECTIONS:
        return False
    if len(words) > 1 and words[1] in _NOT_A_REJECTION:
        return False
    return not (previous and previous.rstrip().endswith("?"))


def _rejects_previous_action(words: list[str], previous: str | None) -> bool:
    # "Not staging.yaml, prod.yaml." only reads as a redirect when the model has just
    # mentioned staging.yaml; without that context "not X" is too weak a signal.
    if not previous or "not" not in words:
        return False
    mentioned = {w for w in _words(previous) if len(w) >= 3}
    for i, word in enumerate(words[:-1]):
        if word != "not":
            continue
        target = words[i + 1]
        if target in {"the", "that", "this"} and i + 2 < len(words):
            target = words[i + 2]
        if target in mentioned and target not in _NOT_AN_OBJECT:
            return True
    return False


def turn_labels(turns: list[Mapping[str, Any]]) -> list[tuple[str | None, str] | None]:
    """The label and its source for each turn, aligned with turns (None for non-user).

    Bundle labels always win, null included ("labelled: none of them"); the extractor
    only fills in user turns that have no `label` key.
    """
    out: list[tuple[str | None, str] | None] = []
    previous_assistant: str | None = None
    for turn in turns:
        role = turn.get("role")
        if role == "assistant":
            previous_assistant = turn.get("text")
            out.append(None)
        elif role != "user":
            out.append(None)
        elif "label" in turn:
            out.append((turn["label"], SOURCE_BUNDLE))
        else:
            label = label_user_turn(turn.get("text") or "", previous_assistant)
            out.append((label, SOURCE_EXTRACTOR))
    return out
