"""A strict element tree of an HTML page (html.parser), for the gallery's tests."""
from html.parser import HTMLParser

VOID = {"meta", "br", "wbr", "img", "input", "link", "hr", "source"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def all(self, tag=None, cls=None):
        for child in self.children:
            if (tag is None or child.tag == tag) and (cls is None or cls in child.attrs.get("class", "").split()):
                yield child
            yield from child.all(tag, cls)

    def content(self) -> str:
        return self.text + "".join(c.content() for c in self.children)


class Tree(HTMLParser):
    """A strict tree: every non-void element must be closed by its own end tag."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.root = self.node = Node("#document", {})
        self.doctype = None
        self.feed(text)
        self.close()
        assert self.node is self.root, f"<{self.node.tag}> is never closed"

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.node)
        self.node.children.append(node)
        if tag not in VOID:
            self.node = node

    def handle_endtag(self, tag):
        assert self.node.tag == tag, f"</{tag}> closes <{self.node.tag}>"
        self.node = self.node.parent

    def handle_data(self, data):
        self.node.text += data


def linked(tree: Tree) -> list[str]:
    """Every href, src and poster that names a file (not a data: URI or an anchor)."""
    refs = [n.attrs.get(a) for n in tree.root.all() for a in ("href", "src", "poster") if n.attrs.get(a)]
    return [r for r in refs if not r.startswith(("data:", "#"))]
