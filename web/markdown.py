"""Replies' markdown rendered to safe HTML on the server.

A stored reply must never make the browser fetch anything by itself: raw HTML is
escaped by the parser, images become plain links (nothing loads until a click), and
nh3 (the ammonia sanitizer) keeps only a small set of tags and http(s)/mailto links,
each with ``rel="noopener nofollow noreferrer"``.
"""

from __future__ import annotations

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "p", "br", "hr", "strong", "em", "code", "pre", "blockquote", "a",
    "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td", "del", "span",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title", "class"}, "span": {"class"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = {"http", "https", "mailto"}


def _image_as_link(self, tokens, idx, options, env) -> str:
    """An image becomes a link naming it: the browser loads nothing until the user clicks."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    src = token.attrGet("src") or ""
    return f'<a href="{escape(src)}" class="image-link">{escape(alt)} (image)</a>'


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"]
    )
    md.add_render_rule("image", _image_as_link)
    return md


_MD = _parser()


def render_markdown(text: str) -> SafeString:
    """Safe HTML for ``text``; anything the sanitizer does not know is dropped or escaped."""
    html = _MD.render(text or "")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener nofollow noreferrer",
        strip_comments=True,
    )
    return mark_safe(clean)  # noqa: S308 (sanitized by nh3 just above)
