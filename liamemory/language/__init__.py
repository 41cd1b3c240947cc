"""The one home of the language heuristics (English and Italian word lists and patterns).

Summaries, matching, retrieval, context and the offline model read their words from here;
adding a language is one module beside ``en`` and ``it``. Nothing here touches the database.
"""
