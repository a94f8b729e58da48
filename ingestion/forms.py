from __future__ import annotations

from django import forms

# The name of the form's "Check only" button: present in the POST, the bundle is
# validated and nothing is stored.
CHECK_ONLY = "check_only"


class BundleUploadForm(forms.Form):
    file = forms.FileField(
        label="Bundle",
        help_text="A .tar.gz, .tgz or .zip archive in the arena-bundle/1 format.",
        widget=forms.ClearableFileInput(attrs={"accept": ".tar.gz,.tgz,.zip,.json"}),
    )
