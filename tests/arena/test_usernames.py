"""Sign-up's user-name rule (arena.usernames): NFKC first, a safe ASCII alphabet, and no
name whose skeleton is an existing account's."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from arena.usernames import username_skeleton
from tests.conftest import make_user

PASSWORD = "a long and unusual passphrase"
CONFUSABLE = "looks too much like an existing account"
UNSAFE = "Use ASCII letters, digits and . _ - only"


def sign_up(username: str, email: str = "new@example.org"):
    return Client().post(
        "/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


@pytest.mark.pure
@pytest.mark.parametrize(
    ("one", "other"),
    [("Ada", "ada"), ("ada_1", "ada-l"), ("rnary", "mary"), ("vvill", "will"), ("B0B", "bob"),
     ("ａｄａ", "ada"), ("аdа", "ada"), ("ο1ga", "olga")],
)  # fmt: skip
def test_it_gives_look_alike_names_one_skeleton(one, other):
    assert username_skeleton(one) == username_skeleton(other)


@pytest.mark.pure
def test_it_keeps_different_names_apart():
    assert username_skeleton("ada") != username_skeleton("eda")
    assert username_skeleton("mary") != username_skeleton("marry")


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["аda", "adа", "ada\u200b", "ade\u0301", "-ada", "ada."])
def test_it_refuses_a_name_outside_the_safe_alphabet(name):
    response = sign_up(name)
    assert response.status_code == 200 and UNSAFE in response.content.decode()
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("existing", "name"),
    [("ada", "ａｄａ"), ("ada", "ADA"), ("ada-l", "Ada_1"), ("mary", "rnary"), ("bob", "b0b")],
)
def test_it_refuses_a_name_that_looks_like_an_existing_account(existing, name):
    make_user(existing)
    response = sign_up(name)
    assert response.status_code == 200
    page = response.content.decode()
    assert CONFUSABLE in page or "already exists" in page
    assert get_user_model().objects.count() == 1


@pytest.mark.django_db
def test_it_refuses_a_name_like_an_older_account_in_another_script():
    make_user("\u0430d\u0430")  # Cyrillic а, from before the rule
    response = sign_up("ada")
    assert CONFUSABLE in response.content.decode()


@pytest.mark.django_db
def test_it_stores_a_full_width_name_in_its_normal_form():
    assert sign_up("ａｌａｎ").status_code == 302
    assert get_user_model().objects.get().username == "alan"
