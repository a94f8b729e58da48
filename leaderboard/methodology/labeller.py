"""Rule-based labeller for user turns that arrive without labels (methodology §3).

A user turn carries a set of labels: praise, complaint, correction, urging and iteration
(the empty set is "none of them"). A bundle, or a moderator, may label a turn itself;
those labels are used as they are. Only turns with no stored labels reach these rules,
which are plain phrase patterns, so a submitter can predict them and the methodology
page can list them (templates/leaderboard/methodology.html, #labels).

Each sentence is labelled on its own and the turn's set is the union, so "This is wrong
and frustrating. Use the other config instead." is a complaint and a correction: the
seed counts a complaint "independent of whether they go on to correct it". Within one
sentence, a complaint or a correction silences praise ("Thanks, but use tabs instead",
"That's not great"). Praise counts only when unprompted: a turn answering an assistant
turn that asks for the user's verdict ("Does this look good?") carries no praise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PRAISE, COMPLAINT, CORRECTION = "praise", "complaint", "correction"
URGING, ITERATION = "urging", "iteration"
LABELS = (PRAISE, COMPLAINT, CORRECTION, URGING, ITERATION)

SOURCE_BUNDLE, SOURCE_EXTRACTOR, SOURCE_MODERATOR = "bundle", "extractor", "moderator"


# --- rules -------------------------------------------------------------------------------
#
# Rules are phrases over lower-cased words with apostrophes removed ("don't" -> "dont").
# A phrase is slots separated by spaces; a slot lists alternatives with "|", "_" is any
# word and a trailing "?" makes the slot optional. Every sentence is matched on its own,
# as "^ words... end" ("^" opens it, end is its "." "!" "?" or ";", "." when missing), so
# no phrase runs across the end of a sentence. Phrases are indexed by their first word,
# so labelling a turn is one tokenisation and a few anchored matches per sentence.

# "It doesn't work", "still not running", "did not help".
_BROKEN_VERBS = (
    "work|works|working|compile|compiles|compiling|run|runs|running|build|builds"
    "|building|help|helps|fix|fixed|fixes|load|loads|loading|start|starts|pass|passes"
)
# Re-directions: they name what is wrong with what the model did, whatever else the
# sentence says.
_CORRECTION_PHRASES = (
    "^ actually",
    "instead",
    "rather than",
    "i said|meant",
    "i asked you to",
    # "I asked for the CSV" re-directs; "not what I asked for." only complains.
    "i asked for a|an|the|my|it|them|that|this|those|these",
    "i told you",
    "not the|that|this? _ _? but|use",
    "dont|never|stop use|touch|change|modify|edit|delete|remove|run",
    "do not use|touch|change|modify|edit|delete|remove|run|add",
    # "dont add up" is an idiom, so "dont add" needs an object.
    "dont|never add a|the|any|more|it|that|this|those|these",
    "wrong file|branch|directory|folder|table|column|function|env|environment|version"
    "|one|name|path|format|port|account|database|db",
)
# Requirements: a correction, unless the sentence opens a next step ("Next, the page
# should include a footer." iterates on work the user accepted).
_REQUIREMENT_PHRASES = (
    "should|must|need|needs to? be|use|go|have|start|look|say|read|return|include",
    "put it|them|that in",
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
    "you keep|broke|deleted|ignored|forgot|missed",
    "this is a mess",
    "this is bad",
    "this is not right|ok|okay|good",
    "why did|would you",
    "not quite",
    "not so|very|that? great|good|helpful|right|correct|perfect",
)
# Reports of a fix ("no more crashes") that would otherwise read as complaints.
_FIXED_PHRASES = (
    "no more? crash|crashes|crashing|failing",
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
    # "Better." or "Much better!" on its own; "It would be better to ..." is no verdict.
    "^ much|way|far? better .|!",
)
# Pushing for speed or a sign of life: neither a complaint nor a correction.
_URGING_PHRASES = (
    "any update|updates|news|progress",
    "hurry",
    "still|im|been|keep|kept waiting",
    "come on",
    "how much longer",
    "whats|what is? taking so? long",
    "speed it? up",
    "asap",
    "are you done|there|finished|still",
)
# A next step: a sentence that opens with one of these and asks for something is an
# iteration, not a correction.
_NEXT_STEP_PHRASES = (
    "^ ok|okay|great|good|thanks|perfect|nice|cool|alright|yes|and? next|now|then|also"
    "|additionally|finally",
    "also",
    "as well",
    "too please? .|!|?|;",
    "one|another more? thing",
    "in addition",
)
# An instruction or a request ("add a footer", "can you ...", "the page should ...").
_INSTRUCTION_PHRASES = (
    "use|do|make|put|try|keep|change|switch|call|name|run|write|add|remove|revert|undo"
    "|leave|only|just",
    "go back",
    "it should",
    "i want",
    "we need",
)
_REQUEST_PHRASES = (
    "please|lets|include|create|implement|build|update|move|rename|show|display|sort",
    "can|could|would you",
)
# In the assistant turn before, a question with one of these, or an invitation, asks for
# the user's verdict, so praise answering it is prompted ("Does this look good?" "Yes,
# looks good."). "It looks good to me." asks nothing.
_VERDICT_QUESTIONS = (
    "look|looks|sound|sounds|seem|seems good|ok|okay|right|fine|correct|alright",
    "is|does this|that|it ok|okay|good|right|correct|fine|alright|what",
    "does|did|if this|that|it work|works|help|helps",
    "what do? you think",
    "any|your thoughts|feedback",
    "happy|satisfied with",
)
_VERDICT_INVITATIONS = (
    "let me know if|whether this|that|it|everything works|looks|helps|is",
    "let me know what|how you think|feel",
)
_LEADING_REJECTIONS = frozenset({"no", "nope", "nah", "wait", "stop"})
# "No worries", "no problem", "no rush": friendly, not a rejection.
_NOT_A_REJECTION = frozenset({"worries", "problem", "prob", "rush", "need"})
# Words after "not" that never name something the model did.
_NOT_AN_OBJECT = frozenset({"what", "working", "work", "sure", "yet", "quite"})
_SENTENCE_END = frozenset({".", "!", "?", ";"})
_TOKEN = re.compile(r"\w(?:[\w./-]*\w)?|[.!?;]")


@dataclass(frozen=True)
class _Slot:
    words: frozenset[str]
    optional: bool
    wildcard: bool

    def accepts(self, word: str) -> bool:
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

    def families(self, words: list[str]) -> set[str]:
        """The families with at least one phrase somewhere in words."""
        found: set[str] = set()
        for i, word in enumerate(words):
            for family, slots in self._by_word.get(word, ()):
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


_FIXED, _REQUIREMENT, _NEXT_STEP = "fixed", "requirement", "next step"
_INSTRUCTION, _REQUEST = "instruction", "request"
_RULES = _PhraseSet(
    {
        CORRECTION: _CORRECTION_PHRASES,
        _REQUIREMENT: _REQUIREMENT_PHRASES,
        COMPLAINT: _COMPLAINT_PHRASES,
        _FIXED: _FIXED_PHRASES,
        PRAISE: _PRAISE_PHRASES,
        URGING: _URGING_PHRASES,
        _NEXT_STEP: _NEXT_STEP_PHRASES,
        _INSTRUCTION: _INSTRUCTION_PHRASES,
        _REQUEST: _REQUEST_PHRASES,
    }
)
_QUESTION, _INVITATION = "question", "invitation"
_VERDICT_REQUESTS = _PhraseSet({_QUESTION: _VERDICT_QUESTIONS, _INVITATION: _VERDICT_INVITATIONS})


def _sentences(text: str | None) -> list[list[str]]:
    """The words of each sentence, as "^", the words, and the sentence's end."""
    if not text:
        return []
    sentences: list[list[str]] = []
    current: list[str] = []
    for word in _TOKEN.findall(text.lower().replace("'", "").replace("\u2019", "")):
        if word in _SENTENCE_END:
            sentences.append(["^", *current, word])
            current = []
        else:
            current.append(word)
    if current:
        sentences.append(["^", *current, "."])
    return sentences


# --- labelling ----------------------------------------------------------------------------


def user_turn_labels(
    text: str | None, previous_assistant_text: str | None = None
) -> frozenset[str]:
    """The labels of one user turn (the empty set: none of them).

    previous_assistant_text is the assistant turn this user turn answers (None when
    there is none): praise that answers its request for a verdict is prompted, a
    "no, ..." that answers its question is not a correction, and "not X" where it just
    did X is one.
    """
    sentences = _sentences(text)
    if not sentences:
        return frozenset()
    context = _Context(previous_assistant_text, _rejects(sentences[0], previous_assistant_text))
    labels: set[str] = set()
    for words in sentences:
        labels |= _sentence_labels(words, context)
    # Only a turn with praise needs the assistant turn read again.
    if PRAISE in labels and _asks_for_verdict(previous_assistant_text):
        labels.discard(PRAISE)
    return frozenset(labels)


@dataclass(frozen=True)
class _Context:
    previous: str | None  # the assistant turn answered
    rejected: bool  # the turn opens by rejecting what the model did


def _rejects(first: list[str], previous: str | None) -> bool:
    # A leading "no" rejects what was done, so an instruction in the turn says what to
    # do instead; but when the model has just asked a question, "no, keep them" answers
    # it, and "no worries" is friendly.
    if first[1] not in _LEADING_REJECTIONS or first[2] in _NOT_A_REJECTION:
        return False
    return not (previous and previous.rstrip().endswith("?"))


def _sentence_labels(words: list[str], context: _Context) -> set[str]:
    found = _RULES.families(words)
    labels = {URGING} & found
    if COMPLAINT in found and _FIXED not in found:
        labels.add(COMPLAINT)
    strong = (
        CORRECTION in found
        or _use_not(words)
        or (context.rejected and _INSTRUCTION in found)
        or _rejects_previous_action(words, context.previous)
    )
    next_step = _NEXT_STEP in found and bool(found & {_INSTRUCTION, _REQUEST, _REQUIREMENT})
    if strong or (_REQUIREMENT in found and not next_step):
        labels.add(CORRECTION)
    elif next_step:
        labels.add(ITERATION)
    # "Thanks, but use tabs instead", "That's not great": the objection is the verdict.
    if PRAISE in found and not labels & {COMPLAINT, CORRECTION}:
        labels.add(PRAISE)
    return labels


def _use_not(words: list[str]) -> bool:
    # "Use the staging credentials, not prod." names the right thing and the wrong one.
    return "use" in words and "not" in words[words.index("use") :]


def _rejects_previous_action(words: list[str], previous: str | None) -> bool:
    # "Not staging.yaml, prod.yaml." only reads as a redirect when the model has just
    # mentioned staging.yaml; without that context "not X" is too weak a signal. Every
    # sentence ends with its end mark, so a "not" is never the last word.
    if not previous or "not" not in words:
        return False
    mentioned = {w for words in _sentences(previous) for w in words if len(w) >= 3}
    for i, word in enumerate(words):
        if word != "not":
            continue
        target = words[i + 1]
        if target in {"the", "that", "this"}:
            target = words[i + 2]
        if target in mentioned and target not in _NOT_AN_OBJECT:
            return True
    return False


def _asks_for_verdict(previous: str | None) -> bool:
    for words in _sentences(previous):
        found = _VERDICT_REQUESTS.families(words)
        if _INVITATION in found or (_QUESTION in found and words[-1] == "?"):
            return True
    return False


# --- turns --------------------------------------------------------------------------------


def turn_labels(turns: Sequence[Mapping[str, Any]]) -> list[tuple[frozenset[str], str] | None]:
    """The label set and its source for each turn, aligned with turns (None for non-user).

    Stored labels always win, an empty set included ("labelled: none of them"): a turn
    carries them as `labels` (a list of names) with its `label_source`, or in the legacy
    bundle form `label` (one name or null). The extractor only fills in user turns that
    carry neither.
    """
    out: list[tuple[frozenset[str], str] | None] = []
    previous_assistant: str | None = None
    for turn in turns:
        role = turn.get("role")
        if role == "assistant":
            previous_assistant = turn.get("text")
            out.append(None)
        elif role != "user":
            out.append(None)
        else:
            out.append(_stored(turn) or _extracted(turn, previous_assistant))
    return out


def _stored(turn: Mapping[str, Any]) -> tuple[frozenset[str], str] | None:
    source = turn.get("label_source") or SOURCE_BUNDLE
    if "labels" in turn:
        return frozenset(turn["labels"] or ()), source
    if "label" in turn:
        label = turn["label"]
        return frozenset({label} if label else ()), source
    return None


def _extracted(turn: Mapping[str, Any], previous: str | None) -> tuple[frozenset[str], str]:
    return user_turn_labels(turn.get("text"), previous), SOURCE_EXTRACTOR
