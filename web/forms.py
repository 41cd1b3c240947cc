"""Input of the web pages. Domain rules stay in the services; these only shape input."""

from __future__ import annotations

from django import forms
from django.conf import settings

from usecases.turn.registry import agent_choices


class NewConversationForm(forms.Form):
    agent = forms.ChoiceField(choices=agent_choices, initial="assistant")
    incognito = forms.BooleanField(
        required=False,
        help_text="Nothing is read from or written to your long-term memory; kept for the shortest time.",
    )


class MessageForm(forms.Form):
    content = forms.CharField(
        strip=False,
        max_length=settings.MESSAGE_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 1, "placeholder": "Write a message…", "autocomplete": "off"}),
    )

    def clean_content(self) -> str:
        content = self.cleaned_data["content"]
        if not content.strip():
            raise forms.ValidationError("Write something first.")
        return content


class ChatUpdateForm(forms.Form):
    """What the chat page shows already (messages through number ``after``) and how far it asks."""

    after = forms.IntegerField(min_value=0, max_value=2**31 - 1)
    through = forms.IntegerField(min_value=0, max_value=2**31 - 1, required=False)


class RenameForm(forms.Form):
    title = forms.CharField(max_length=200)


class SearchForm(forms.Form):
    q = forms.CharField(max_length=500, label="Search my conversations")


class MemoryCorrectForm(forms.Form):
    content = forms.CharField(max_length=settings.MEMORY_MAX_CHARS, label="Corrected text")


class StatementCorrectForm(forms.Form):
    right_value = forms.CharField(max_length=500, label="What is right instead")
    about = forms.CharField(max_length=100, required=False, label="About (optional)")


class MemorySwitchForm(forms.Form):
    enabled = forms.BooleanField(required=False)


class EraseForm(forms.Form):
    confirm = forms.BooleanField(
        label="I understand that all my conversations and memories are deleted for good.",
        error_messages={"required": "Tick the box to confirm."},
    )
    delete_account = forms.BooleanField(required=False, label="Close my account as well.")
