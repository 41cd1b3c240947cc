"""The officer's pages of an erasure: the request links to its receipt; the receipt reads
in plain words with the store names beside them, downloads and prints; the ticket
reference survives the erasure without personal data."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from governance.models import ErasureRequest
from tests.usecases.people import person_with_data
from usecases.erasure import erasure_execute, erasure_request_create
from usecases.erasure_receipts import receipt_hash

pytestmark = pytest.mark.django_db


def _admin(user) -> Client:
    user.is_staff = True  # admin is for staff; the compliance group gives the erasure pages
    user.save()
    client = Client()
    client.force_login(user)
    return client


def _erased(alice, compliance, **kwargs) -> ErasureRequest:
    person_with_data(alice)
    request = erasure_request_create(subject=alice, requested_by=compliance, **kwargs)
    done = erasure_execute(request_id=request.pk)
    assert done.status == "completed", done.error_message
    return done


def test_the_ticket_reference_survives_the_erasure_and_the_reason_does_not(alice, compliance):
    done = _erased(alice, compliance, reason="alice wrote to us, ticket SR-2291", ticket="SR-2291")

    assert done.reason == "" and done.ticket == "SR-2291"
    assert done.receipt.body["reference"] == "SR-2291"
    page = _admin(compliance).get("/admin/governance/erasurerequest/?q=SR-2291")
    assert page.status_code == 200 and "SR-2291" in page.content.decode()


def test_a_reference_naming_the_person_is_refused_with_a_clear_error(alice, compliance):
    api = APIClient()
    api.force_authenticate(compliance)
    named = api.post("/api/erasure-requests", {"subject_id": alice.pk, "ticket": f"SR-{alice.username}"}, format="json")
    assert named.status_code == 400 and "ticket" in named.json()["extra"]["fields"], named.content
    spaced = api.post("/api/erasure-requests", {"subject_id": alice.pk, "ticket": "Alice Smith"}, format="json")
    assert spaced.status_code == 400, spaced.content
    assert not ErasureRequest.objects.exists()


def test_the_request_page_links_to_a_readable_receipt_that_downloads_and_prints(alice, compliance, staff):
    done = _erased(alice, compliance, ticket="CASE-7")
    officer = _admin(compliance)

    request_page = officer.get(f"/admin/governance/erasurerequest/{done.pk}/change/").content.decode()
    url = f"/admin/governance/erasurereceipt/{done.receipt.pk}/readable/"
    assert url in request_page

    page = officer.get(url)
    text = page.content.decode()
    assert page.status_code == 200
    assert "What you and the assistant said in them" in text  # plain words for the person
    assert "<code>messages</code>" in text and "conversations.Message" in text  # store names for the officer
    assert "window.print()" in text and "CASE-7" in text and "matches its content" in text

    html = officer.get(url + "?download=html")
    assert html["Content-Disposition"].startswith("attachment;") and b"Erasure receipt" in html.content
    signed = officer.get(url + "?download=json")
    assert signed["Content-Disposition"].startswith("attachment;")
    assert receipt_hash(json.loads(signed.content)) == done.receipt.sha256

    assert _admin(staff).get(url).status_code in (302, 403)  # staff may not read who was erased


def test_a_person_whose_account_was_kept_is_told_once_at_sign_in_what_was_erased(alice, bob, compliance):
    done = _erased(alice, compliance)
    assert done.subject_id is None  # the request no longer names her

    person = Client()
    person.force_login(alice)
    first = person.get("/", follow=True).content.decode()
    assert "all your data was erased" in first and done.finished_at.strftime("%Y-%m-%d") in first
    assert "your conversations: 1" in first.lower() and "Your account was kept" in first
    assert "all your data was erased" not in person.get("/").content.decode()  # told once

    other = Client()
    other.force_login(bob)
    assert "erased" not in other.get("/").content.decode()


def test_an_api_client_is_told_once_too_on_its_me_endpoint(alice, bob, compliance):
    done = _erased(alice, compliance)

    client = APIClient()
    client.force_authenticate(alice)
    first = client.get("/api/me").json()
    assert first["id"] == alice.pk and first["username"] == alice.username
    (notice,) = first["notices"]
    assert notice["kind"] == "erasure" and "all your data was erased" in notice["message"]
    assert "Your account was kept" in notice["message"] and notice["at"].startswith(
        done.finished_at.strftime("%Y-%m-%d")
    )
    assert client.get("/api/me").json()["notices"] == []  # told once
    # The web page, signed in later, does not tell it again.
    person = Client()
    person.force_login(alice)
    assert "all your data was erased" not in person.get("/").content.decode()

    other = APIClient()
    other.force_authenticate(bob)
    assert other.get("/api/me").json()["notices"] == []
