from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The core: shared tables (retention policies, the staff-access audit), errors, the provider."""

    name = "liamemory"
    verbose_name = "Retention and audit"
