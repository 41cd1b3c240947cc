from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from backoffice.person import person_page
from config.health import healthz
from liamemory.login import SignInView

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Before admin/ so that the admin catch-all does not take it.
    path("admin/people/<int:user_id>/", person_page, name="admin-person"),
    path("admin/messages/", include("backoffice.message_corrections")),
    path("admin/", admin.site.urls),
    path("accounts/login/", SignInView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("api.urls")),
    # The end-user pages; last, so every prefix above keeps its routes.
    path("", include("web.urls")),
]

# A database error after the view (the session's save, in a middleware) answers 503 through
# these two as a view's does (liamemory.middleware), not 400 or 500.
handler400 = "liamemory.middleware.bad_request"
handler404 = "liamemory.api.json_not_found"
handler500 = "liamemory.middleware.server_error"
