"""The syntax tree that shparse.py builds from sh/bash text: a word with its quoting and
expansions (Word), here-documents, redirections, simple commands, pipelines, and-or lists, lists,
and the compound commands; and the nesting limit (MAX_DEPTH, TooDeep) that the lexer and the
parser both enforce. Plain data with no behaviour beyond reading a word's literal text."""

MAX_DEPTH = 40


class TooDeep(Exception):
    """Nesting deeper than any real script needs: treated by the gate as obfuscation."""


class Word:
    """A shell word. parts are tuples:
    ('lit', text, quoted) ('param', name, quoted, op, arg, index) ('cmd', node, quoted, src)
    ('arith', [cmd nodes], quoted, text) ('proc', node, direction) ('tilde', user) ('array', [Word])
    """

    __slots__ = ("parts", "src")

    def __init__(self, parts, src):
        self.parts = parts
        self.src = src

    def literal(self):
        """The text after quote removal when the word has no expansions, else None."""
        out = []
        for p in self.parts:
            if p[0] != "lit":
                return None
            out.append(p[1])
        return "".join(out)

    def reserved(self):
        """The word as a reserved-word candidate: only an unquoted plain literal can be one."""
        if len(self.parts) == 1 and self.parts[0][0] == "lit" and not self.parts[0][2]:
            return self.parts[0][1]
        return None

    def __repr__(self):  # pragma: no cover
        return "Word(%r)" % self.src


class Heredoc:
    __slots__ = ("delim", "quoted", "strip", "body", "parts")

    def __init__(self, delim, quoted, strip):
        self.delim, self.quoted, self.strip = delim, quoted, strip
        self.body = ""
        self.parts = None  # expansion parts when the delimiter was unquoted


class Redir:
    __slots__ = ("op", "fd", "target", "heredoc")

    def __init__(self, op, fd, target, heredoc=None):
        self.op, self.fd, self.target, self.heredoc = op, fd, target, heredoc


class Simple:
    __slots__ = ("assigns", "words", "redirs", "src")

    def __init__(self, assigns, words, redirs, src):
        self.assigns, self.words, self.redirs, self.src = assigns, words, redirs, src


class Pipeline:
    __slots__ = ("cmds", "negated", "src")

    def __init__(self, cmds, negated=False, src=""):
        self.cmds, self.negated, self.src = cmds, negated, src


class AndOr:
    __slots__ = ("pipelines",)

    def __init__(self, pipelines):
        self.pipelines = pipelines


class ListNode:
    """A sequence of and-or lists, each with its `background` flag (ended by `&`)."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


class Compound:
    """Subshell, group, if, while/until, for/select, case, function definition, [[ ]], (( )).

    kind  -- 'subshell' 'group' 'if' 'while' 'until' 'for' 'arithfor' 'case' 'func' 'cond' 'arith'
    lists -- the nested ListNodes, in source order (conditions and bodies alike)
    words -- words the construct expands itself (for-loop words, case subject, [[ ]] operands)
    """

    __slots__ = ("kind", "lists", "words", "name", "redirs", "body", "src", "over_params")

    def __init__(self, kind, lists=(), words=(), name=None, body=None, src=""):
        self.kind, self.lists, self.words, self.name, self.body, self.src = (
            kind,
            list(lists),
            list(words),
            name,
            body,
            src,
        )
        self.redirs = []
        self.over_params = False  # `for x; do`: iterates over "$@"
