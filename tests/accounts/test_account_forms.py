"""The account pages' forms in the site's style: an error reads as an error (its own
red list, announced, marked in words), help as help."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_it_marks_a_sign_up_error_as_an_error_under_its_field_apart_from_the_help():
    page = (
        Client()
        .post(
            "/accounts/signup/",
            {"username": "a b", "email": "x@example.org", "password1": "123", "password2": "124"},
        )
        .content.decode()
    )
    field = page.split('<div class="field field-invalid">')[1].split("</div>")[0]
    assert '<ul class="field-errors" role="alert">' in field
    assert '<span class="visually-hidden">Error: </span>' in field
    password = page.split('for="id_password1"')[1].split('<div class="field')[0]
    errors, help_text = password.split('class="field-errors"')[1].split('class="helptext"')
    assert "too short" in errors and "too short" not in help_text
    assert 'class="account-form"' in page and 'class="primary"' in page


def test_it_boxes_an_error_of_the_whole_log_in_form_on_top(submitter):
    page = (
        Client()
        .post("/accounts/login/", {"login": "submitter", "password": "wrong-password"})
        .content.decode()
    )
    box = page.split('<div class="form-errors" role="alert">')[1].split("</div>")[0]
    assert "Error:" in box and "<li>" in box
