from django.apps import AppConfig


class UsecasesConfig(AppConfig):
    name = "usecases"
