from django.apps import AppConfig


class UsecasesConfig(AppConfig):
    name = "usecases"

    def ready(self) -> None:
        # Summaries (conversations) keep the newest of two statements when one changes the
        # other, judged by the memories' change test: the one layer that sees both wires it.
        from conversations.extractive import set_change_judge
        from memories.matching.change import statement_changes

        set_change_judge(statement_changes)
