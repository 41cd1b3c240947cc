"""The API's permission classes: the roles of ``liamemory/roles.py`` as DRF sees them.

The roles themselves (who is staff, who is a compliance officer) have no HTTP in them
and serve services, pages and admin alike; these classes only say what a 403 reads.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from liamemory.roles import is_compliance_officer, is_staff


class IsStaff(BasePermission):
    message = "Only staff can do this."

    def has_permission(self, request, view) -> bool:
        return is_staff(request.user)


class IsComplianceOfficer(BasePermission):
    message = "Only compliance officers can do this."

    def has_permission(self, request, view) -> bool:
        return is_compliance_officer(request.user)


class IsStaffOrCompliance(BasePermission):
    message = "Only staff and compliance officers can do this."

    def has_permission(self, request, view) -> bool:
        return is_staff(request.user) or is_compliance_officer(request.user)
