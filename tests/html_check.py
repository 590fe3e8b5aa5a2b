"""What the tests of lastwords' HTML pages share (report-html.py,
history-html.py): a parser that checks a page is well formed and safe to
open, and the checks on the whole page: no script, no image or link
element, no event handler, nothing loaded from outside, links only to ids
of the page."""
import html.parser
import re

from helpers import check

VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}


class SafePage(html.parser.HTMLParser):
    """Checks nesting and attributes; a subclass sees each element in
    start(tag, attrs) (self.stack then holds its ancestors) and end(tag)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags = [], [], set()
        self.ids, self.links = set(), []

    def start(self, tag, a):
        pass

    def end(self, tag):
        pass

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        a = dict(attrs)
        for k, v in attrs:
            if k.startswith("on") or k in ("src", "action") or "javascript:" in (v or "") or \
                    (k == "href" and not (v or "").startswith("#")):
                self.errors.append("attribute %s=%r on <%s>" % (k, v, tag))
        if "id" in a:
            self.ids.add(a["id"])
        if "href" in a:
            self.links.append(a["href"][1:])
        self.start(tag, a)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()
            self.end(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        self.end(tag)


def check_page(name, text, page):
    """The whole page, parsed by page (a SafePage), is well formed and safe."""
    page.feed(text)
    page.close()
    check(text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"),
          "%s: a whole page" % name)
    check(not page.errors and not page.stack, "%s: well formed: %s %s" % (name, page.errors[:3], page.stack))
    check("script" not in page.tags and "img" not in page.tags and "link" not in page.tags,
          "%s: no script, image or link elements: %s" % (name, sorted(page.tags)))
    check(not re.search(r"https?://|url\(", text), "%s: nothing outside the page" % name)
    check(all(l in page.ids for l in page.links), "%s: every link goes to an id: %s" %
          (name, [l for l in page.links if l not in page.ids]))
