"""Replies' markdown: formatting kept, nothing that loads or runs by itself."""

from web.markdown import render_markdown


def test_formatting_is_kept():
    html = render_markdown("**bold** and `code`\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "<strong>bold</strong>" in html and "<code>code</code>" in html
    assert "<li>one</li>" in html and "<td>1</td>" in html


def test_images_become_plain_links_that_load_nothing():
    html = render_markdown("look ![a cat](https://tracker.example/cat.png)")
    assert "<img" not in html
    assert 'href="https://tracker.example/cat.png"' in html and "a cat (image)" in html
    assert 'rel="noopener nofollow noreferrer"' in html


def test_raw_html_and_script_links_are_neutralised():
    html = render_markdown(
        '<img src="https://x.example/p.png" onerror="alert(1)"><script>alert(1)</script>'
        "\n\n[click](javascript:alert(1)) <iframe src='https://x.example'></iframe>"
    )
    assert "<img" not in html and "<script" not in html and "<iframe" not in html
    assert 'href="javascript' not in html
    assert "&lt;script&gt;" in html


def test_links_get_safe_rel():
    html = render_markdown("[docs](https://docs.example/x)")
    assert '<a href="https://docs.example/x" rel="noopener nofollow noreferrer">docs</a>' in html
