"""Reads for erasure: requests and legal holds.

Everything here is read-only. What a person owns, store by store, is the map of personal
data (``usecases/personal_data.py``), and the steps that erase it are read from it
(``usecases/erasure_steps.py``); the schema-wide leftover scan after an erasure is
``usecases/erasure_scan.py``.
"""

from __future__ import annotations

from django.db.models import QuerySet

from governance.models import ErasureRequest, LegalHold


def hold_in_force(*, user_id: int) -> bool:
    return LegalHold.objects.in_force().filter(user_id=user_id).exists()


def erasure_request_list() -> QuerySet[ErasureRequest]:
    return ErasureRequest.objects.select_related("receipt").order_by("-created_at")


def legal_hold_list() -> QuerySet[LegalHold]:
    return LegalHold.objects.order_by("-placed_at")
