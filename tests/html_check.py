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


CLASSES = ["low_memory", "anr", "native_crash", "java_crash", "system_reclaim", "unknown"]
LEVELS = ["confirmed", "supported", "unconfirmed"]
MIN_DISTANCE = 60   # between two colours of a legend, in RGB (0-255 a channel)


def rgb(text, opacity=1.0):
    """#rrggbb (or #rgb) at opacity, on white: (r, g, b)."""
    h = text.strip().lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    c = [int(h[i:i + 2], 16) for i in (0, 2, 4)]
    return tuple(round(255 - (255 - x) * opacity) for x in c)


def root_colours(text):
    """The page's CSS custom properties that are colours: {name: (r, g, b)}."""
    out = {}
    for block in re.findall(r":root\{([^}]*)\}", text.split("</style>")[0]):
        for k, v in re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", block):
            out.setdefault(k, rgb(v))
    return out


def check_distinct(name, colours):
    """colours ({what: (r, g, b)}) are pairwise far apart."""
    names = sorted(colours)
    close = [(a, b, colours[a], colours[b]) for i, a in enumerate(names) for b in names[i + 1:]
             if sum((x - y) ** 2 for x, y in zip(colours[a], colours[b])) ** 0.5 < MIN_DISTANCE]
    check(not close, "%s: colours too alike to tell apart: %s" % (name, close))


def check_class_level_colours(name, text):
    """The page's CSS gives every class and every level a colour of its own
    (--class-NAME, --level-NAME), each far from every other."""
    got = root_colours(text)
    want = ["class-" + c for c in CLASSES] + ["level-" + lv for lv in LEVELS]
    missing = [w for w in want if w not in got]
    check(not missing, "%s: no colour for %s (the page has %s)" % (name, missing, sorted(got)))
    check_distinct(name, {w: got[w] for w in want if w in got})


TIME = re.compile(r"(\d{4}-\d\d-\d\d[T ])?\d{1,2}:\d\d:\d\d(\.\d+)?Z?")


class Texts(SafePage):
    """Every text of a page a person reads (text and <title>s), with the
    element that holds it."""

    def __init__(self):
        super().__init__()
        self.texts = []
        self.in_style = False

    def start(self, tag, a):
        self.in_style = tag == "style"

    def end(self, tag):
        self.in_style = False

    def handle_data(self, data):
        if not self.in_style:
            self.texts.append((self.stack[-1] if self.stack else "", data))


def unzoned_times(text, zone):
    """The times of the page that say no zone: each must be followed by
    " UTC" (not an offset of it unless that is zone) or by " " + zone.
    [(element, the time and what follows)]."""
    page = Texts()
    page.feed(text)
    page.close()
    bad = []
    for tag, data in page.texts:
        for m in TIME.finditer(data):
            rest = data[m.end():]
            utc = rest.startswith(" UTC") and not re.match(r" UTC[+-]", rest)
            if m.group(0).endswith("Z") or not (utc or rest.startswith(" " + zone)):
                bad.append((tag, data[m.start():m.end() + 16]))
    return bad
