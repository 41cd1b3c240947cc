"""What governance stores about people (the declarations: ``liamemory/personal_data.py``)."""

from __future__ import annotations

from liamemory.personal_data import Audit, Key, OnParent, Parent, Store

STORES = (
    Store(
        "legal_holds_lifted",
        model="governance.LegalHold",
        # A hold in force stops the erasure; a lifted one goes with the person.
        keys=(
            Key("user", Parent.PERSON, OnParent.DELETE),
            # Holds the person placed on other people name them no more.
            Key(
                "placed_by",
                Parent.PERSON,
                OnParent.PSEUDONYMIZE,
                scrubs=("placed_by",),
                counted_as="references_cleared",
            ),
        ),
        only=(("lifted_at__isnull", False),),
        content=("reason",),
        audit=Audit.SELF,
        description="legal holds on your data that were lifted",
    ),
    Store(
        "erasure_requests",
        model="governance.ErasureRequest",
        keys=(
            Key("subject", Parent.PERSON, OnParent.KEEP),
            # Requests the person filed about other people name them no more.
            Key(
                "requested_by",
                Parent.PERSON,
                OnParent.PSEUDONYMIZE,
                scrubs=("requested_by",),
                counted_as="references_cleared",
            ),
        ),
        content=("reason", "verification"),
        audit=Audit.SELF,
        description="this request (its reason is wiped; its reference is kept)",
    ),
)
