from django.urls import path

from governance import api, api_data

urlpatterns = [
    path("erasure-requests", api.ErasureRequestListCreateApi.as_view(), name="erasure-request-list"),
    path("erasure-requests/<uuid:pk>", api.ErasureRequestDetailApi.as_view(), name="erasure-request-detail"),
    path("erasure-requests/<uuid:pk>/dry-run", api.ErasureDryRunApi.as_view(), name="erasure-request-dry-run"),
    path("erasure-requests/<uuid:pk>/execute", api.ErasureExecuteApi.as_view(), name="erasure-request-execute"),
    path("erasure-requests/<uuid:pk>/receipt", api.ErasureReceiptApi.as_view(), name="erasure-request-receipt"),
    path("legal-holds", api.LegalHoldListPlaceApi.as_view(), name="legal-hold-list"),
    path("legal-holds/<int:pk>/lift", api.LegalHoldLiftApi.as_view(), name="legal-hold-lift"),
    path("memories/<int:memory_id>/erase", api.MemoryEraseApi.as_view(), name="memory-erase"),
    path("me/erase", api.MeEraseApi.as_view(), name="me-erase"),
    path("me/export", api_data.MeExportApi.as_view(), name="me-export"),
    path("people/<int:user_id>/export", api_data.PersonExportApi.as_view(), name="person-export"),
    path("people/<int:user_id>/import", api_data.PersonImportApi.as_view(), name="person-import"),
]
