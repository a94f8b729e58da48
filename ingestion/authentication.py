"""API token authentication: `Authorization: Token <key>` or `Authorization: Bearer <key>`.

One class for both keywords (api.md, second version): the key is the submitter's one API
token either way, found by its SHA-256 (ingestion.services.api_tokens). Any other
scheme (Basic, a misspelt keyword) is not this class's business: it returns None and the
request stays anonymous, which the submission endpoints answer with 401.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.request import Request

from ingestion.services.api_tokens import api_token_find

# The schemes accepted, compared case-insensitively as RFC 9110 §11.1 asks.
TOKEN_KEYWORDS = ("Token", "Bearer")
_ACCEPTED = frozenset(keyword.lower().encode() for keyword in TOKEN_KEYWORDS)


class ApiTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, accepting the `Bearer` keyword beside `Token`.

    The 401 challenge (WWW-Authenticate) keeps naming `Token`, as before.
    """

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token = api_token_find(key=key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return token.user, token

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in _ACCEPTED:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header: give the keyword, one space and the key.")
            )
        try:
            key = parts[1].decode()
        except UnicodeError as error:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header: the key holds invalid characters.")
            ) from error
        return self.authenticate_credentials(key)


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The scheme in the OpenAPI document: HTTP bearer, so that the interactive docs'
    "Authorize" button sends `Authorization: Bearer <key>`."""

    target_class = ApiTokenAuthentication
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "Your API token (from /submit/): `Authorization: Bearer <key>`; "
            "`Authorization: Token <key>` works the same.",
        }
