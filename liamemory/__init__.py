"""The core: what every app stands on and that names no app (errors, roles, the provider,
retention rules, the staff-access audit, admin utilities)."""
