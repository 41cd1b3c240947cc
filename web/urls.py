from django.urls import path

from web import account_views, views

app_name = "web"

urlpatterns = [
    path("", views.conversation_list, name="conversations"),
    path("c/new", views.conversation_create, name="conversation-create"),
    path("c/<uuid:thread_id>/", views.chat, name="chat"),
    path("c/<uuid:thread_id>/send", views.chat_send, name="chat-send"),
    path("c/<uuid:thread_id>/update", views.chat_update, name="chat-update"),
    path("c/<uuid:thread_id>/runs/<uuid:run_id>/cancel", views.run_cancel_view, name="run-cancel"),
    path("c/<uuid:thread_id>/runs/<uuid:run_id>/retry", views.run_retry_view, name="run-retry"),
    path("c/<uuid:thread_id>/rename", views.conversation_rename, name="conversation-rename"),
    path("c/<uuid:thread_id>/m/<int:sequence>/correct", views.message_correct_view, name="message-correct"),
    path("c/<uuid:thread_id>/delete", views.conversation_delete, name="conversation-delete"),
    path("search", views.search, name="search"),
    path("memory/", account_views.memory_page, name="memory"),
    path("memory/switch", account_views.memory_switch, name="memory-switch"),
    path("memory/<int:memory_id>/delete", account_views.memory_delete, name="memory-delete"),
    path("memory/<int:memory_id>/correct", account_views.memory_correct_view, name="memory-correct"),
    path("privacy/", account_views.privacy_page, name="privacy"),
    path("privacy/export", account_views.privacy_export, name="privacy-export"),
    path("privacy/erase", account_views.privacy_erase, name="privacy-erase"),
]
