"""Which user names sign-up accepts: no name that looks like another account's.

The rule, at sign-up (allauth calls `AccountAdapter.clean_username`; staff creating an
account in the admin are not held to it):

* the name is NFKC-normalised first and kept so (full-width `ａｄａ` is `ada`);
* it is then ASCII letters, digits and `.`, `_`, `-`, starting and ending with a letter
  or digit: no Cyrillic or Greek look-alike, no invisible or combining character;
* it is refused when its skeleton equals an existing account's. The skeleton is the
  NFKC form in lower case, with the characters that pass for one another made one
  (`1`, `i` and `l`; `0` and `o`; `rn` and `m`; `vv` and `w`; `.`, `_` and `-`; the
  Cyrillic and Greek letters that look Latin, for names from before this rule), so
  `Ada`, `ada_1` beside `ada-l`, or `rnary` beside `mary` cannot both exist.

The database computes existing names' skeletons with the same steps (PostgreSQL's
`normalize`, `lower`, `translate`, `replace`), so no account is read into Python.
"""

from __future__ import annotations

import re
import unicodedata

from allauth.account.adapter import DefaultAccountAdapter
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import F, Func, Value
from django.db.models.functions import Lower, Replace

SAFE_USERNAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
# Lower-case look-alikes, one to one: Cyrillic а е о р с у х і ј ѕ ԁ ɡ ӏ, Greek ο ν ι κ
# and ASCII 1 i 0, and the separators.
_LOOK_FROM = "аеорсухіјѕԁɡӏονικ1i0_-"
_LOOK_TO = "aeopcyxljsdglovlkllo.."
# Pairs of letters that pass for one.
_PAIRS = (("rn", "m"), ("vv", "w"))
_TRANSLATION = str.maketrans(_LOOK_FROM, _LOOK_TO)  # one to one: the lengths match


def username_skeleton(username: str) -> str:
    skeleton = unicodedata.normalize("NFKC", username).lower().translate(_TRANSLATION)
    for pair, one in _PAIRS:
        skeleton = skeleton.replace(pair, one)
    return skeleton


def _skeleton_in_sql(field: str):
    normalized = Lower(Func(F(field), template="normalize(%(expressions)s, NFKC)"))
    skeleton = Func(normalized, Value(_LOOK_FROM), Value(_LOOK_TO), function="translate")
    for pair, one in _PAIRS:
        skeleton = Replace(skeleton, Value(pair), Value(one))
    return skeleton


def username_confusable_with_existing(username: str) -> bool:
    user_model = get_user_model()
    field = user_model.USERNAME_FIELD
    users = user_model._default_manager.annotate(skeleton=_skeleton_in_sql(field))
    return users.filter(skeleton=username_skeleton(username)).exists()


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username: str, shallow: bool = False) -> str:
        username = unicodedata.normalize("NFKC", username)
        if not SAFE_USERNAME.fullmatch(username):
            raise ValidationError(
                "Use ASCII letters, digits and . _ - only, starting and ending with a "
                "letter or digit.",
                code="username_unsafe",
            )
        username = super().clean_username(username, shallow=shallow)
        if not shallow and username_confusable_with_existing(username):
            raise ValidationError(
                "This name looks too much like an existing account's; choose another.",
                code="username_confusable",
            )
        return username
