"""A tolerant lexer and parser for the sh/bash that agents write.

Why not `shlex` alone: shlex does POSIX quote removal well, but it knows nothing of `$( )`,
backticks, `${ }`, `$'...'`, process substitution, here-documents or bash's reserved words, and it
treats `#` inside a word as a comment (`echo x#; rm -rf /` would hide the rm). The gate must see
every command bash would run, so this module follows bash's own rules:

  * words keep their structure: literal text (and whether it was quoted), parameter expansions,
    command substitutions (parsed recursively), arithmetic, process substitutions, tildes;
  * commands are split on `;` `&` `&&` `||` `|` `|&` newlines, subshells, groups, and the compound
    commands (if/while/until/for/case/select/function, `[[ ]]`, `(( ))`);
  * here-documents are read after the line that opens them, with or without expansion.

It never raises on malformed input: bash runs a script line by line, so a syntax error later in
the text does not stop an earlier `rm -rf /`. Unbalanced quotes run to the end of the text and
stray closing tokens are skipped.

The syntax tree is in shnodes.py and the tokenizer in shlexer.py (with the expansions inside
words in shdollar.py); this module holds the Parser and `parse()`, and re-exports the names the
rest of the gate uses.
"""

from .shlexer import _ASSIGN_RE, Lexer, _split_assignment
from .shnodes import MAX_DEPTH, AndOr, Compound, Heredoc, ListNode, Pipeline, Redir, Simple, TooDeep, Word

__all__ = [
    "MAX_DEPTH", "AndOr", "Compound", "Heredoc", "Lexer", "ListNode", "Parser", "Pipeline", "Redir",
    "Simple", "TooDeep", "Word", "parse",
]  # fmt: skip

_LIST_STOPS = frozenset({"then", "elif", "else", "fi", "do", "done", "esac", "}"})
_CASE_ENDS = (";;", ";&", ";;&")


class Parser:
    def __init__(self, src, pos=0, depth=0):
        if depth > MAX_DEPTH:
            raise TooDeep()
        self.src = src
        self.depth = depth
        self.lexer = Lexer(src, pos, depth)
        self._peek = None

    def peek(self):
        if self._peek is None:
            self._peek = self.lexer.token()
        return self._peek

    def next(self):
        tok = self.peek()
        self._peek = None
        return tok

    def _is_word(self, tok, *texts):
        return tok[0] == "word" and tok[1].reserved() in texts

    def _skip_newlines(self):
        while self.peek()[0] == "nl":
            self.next()

    def _expect(self, text):
        self._skip_newlines()
        if self._is_word(self.peek(), text):
            self.next()

    def parse_program(self):
        """The whole text; stray closers (`)`, `fi`, `done`...) are skipped, never fatal."""
        items = []
        while True:
            node = self.parse_list()
            items.extend(node.items)
            if self.peek()[0] == "eof":
                return ListNode(items)
            self.next()

    def parse_list(self):
        """And-or lists up to the end of the text, a `)`, a `;;` or a closing reserved word
        (then, fi, done, esac, `}` ...), which the caller consumes (or skips, if stray)."""
        items = []
        while True:
            tok = self.peek()
            kind = tok[0]
            if kind == "eof":
                break
            if kind == "nl" or (kind == "op" and tok[1] in (";", "&")):
                self.next()
                continue
            if kind == "op" and (tok[1] == ")" or tok[1] in _CASE_ENDS):
                break
            if kind == "word" and tok[1].reserved() in _LIST_STOPS:
                break
            ao = self.parse_and_or()
            if ao is None:
                self.next()  # an unparseable token: skip it so that parsing always advances
                continue
            bg = False
            tok = self.peek()
            if tok[0] == "op" and tok[1] in (";", "&"):
                bg = tok[1] == "&"
                self.next()
            items.append((ao, bg))
        return ListNode(items)

    def parse_and_or(self):
        first = self.parse_pipeline()
        if first is None:
            return None
        pipelines = [first]
        while self.peek()[0] == "op" and self.peek()[1] in ("&&", "||"):
            self.next()
            self._skip_newlines()
            nxt = self.parse_pipeline()
            if nxt is None:
                break
            pipelines.append(nxt)
        return AndOr(pipelines)

    def parse_pipeline(self):
        start = self.peek()[2]
        negated = False
        while True:
            tok = self.peek()
            if self._is_word(tok, "!"):
                negated = True
                self.next()
            elif self._is_word(tok, "time"):
                self.next()
                if self._is_word(self.peek(), "-p"):
                    self.next()
            else:
                break
        cmd = self.parse_command()
        if cmd is None:
            return None
        cmds = [cmd]
        while self.peek()[0] == "op" and self.peek()[1] in ("|", "|&"):
            self.next()
            self._skip_newlines()
            nxt = self.parse_command()
            if nxt is None:
                break
            cmds.append(nxt)
        src = self.src[start : self.lexer.pos if self._peek is None else self._peek[2]].strip()
        return Pipeline(cmds, negated, src)

    def parse_command(self):
        tok = self.peek()
        kind, start = tok[0], tok[2]
        node = None
        if kind == "word":
            r = tok[1].reserved()
            if r == "{":
                self.next()
                body = self.parse_list()
                self._expect("}")
                node = Compound("group", [body])
            elif r == "if":
                node = self._parse_if()
            elif r in ("while", "until"):
                self.next()
                cond = self.parse_list()
                self._expect("do")
                body = self.parse_list()
                self._expect("done")
                node = Compound(r, [cond, body])
            elif r in ("for", "select"):
                node = self._parse_for()
            elif r == "case":
                node = self._parse_case()
            elif r == "function":
                self.next()
                name = self.next()
                if self.peek()[0] == "op" and self.peek()[1] == "(":
                    self.next()
                    if self.peek()[0] == "op" and self.peek()[1] == ")":
                        self.next()
                self._skip_newlines()
                body = self.parse_command()
                fname = name[1].literal() if name[0] == "word" else None
                node = Compound("func", name=fname, body=body)
            elif r == "[[":
                self.next()
                words = []
                while True:
                    t = self.peek()
                    if t[0] == "eof" or self._is_word(t, "]]"):
                        break
                    self.next()
                    if t[0] == "word":
                        words.append(t[1])
                self._expect("]]")
                node = Compound("cond", words=words)
            elif r in _LIST_STOPS or r == "in":
                return None
            else:
                node = self._parse_simple()
        elif kind == "op" and tok[1] == "(":
            self.next()
            body = self.parse_list()
            if self.peek()[0] == "op" and self.peek()[1] == ")":
                self.next()
            node = Compound("subshell", [body])
        elif kind == "arith":
            self.next()
            node = Compound("arith", words=[Word([tok[1]], "")])
        elif kind == "redir":
            node = self._parse_simple()
        else:
            return None
        if isinstance(node, Compound):
            while self.peek()[0] == "redir":
                node.redirs.append(self._parse_redirect())
            end = self.peek()[2]
            node.src = self.src[start:end].strip()
        return node

    def _parse_simple(self):
        start = self.peek()[2]
        assigns, words, redirs = [], [], []
        end = start
        while True:
            tok = self.peek()
            if tok[0] == "word":
                w = tok[1]
                if not words and _ASSIGN_RE.match(w.src):
                    self.next()
                    assigns.append(_split_assignment(w))
                    end = self.lexer.pos
                    continue
                self.next()
                end = self.lexer.pos
                if not words and not assigns and self.peek()[0] == "op" and self.peek()[1] == "(":
                    # `name() compound`: a function definition.
                    self.next()
                    if self.peek()[0] == "op" and self.peek()[1] == ")":
                        self.next()
                    self._skip_newlines()
                    body = self.parse_command()
                    return Compound("func", name=w.literal(), body=body, src=self.src[start : self.lexer.pos])
                words.append(w)
            elif tok[0] == "redir":
                redirs.append(self._parse_redirect())
                end = self.lexer.pos
            else:
                break
        if not words and not assigns and not redirs:
            return None
        return Simple(assigns, words, redirs, self.src[start:end].strip())

    def _parse_redirect(self):
        op, fd = self.next()[1]
        target = None
        heredoc = None
        tok = self.peek()
        if tok[0] == "word":
            self.next()
            target = tok[1]
            if op in ("<<", "<<-"):
                heredoc = self.lexer.register_heredoc(target, strip=op == "<<-")
        return Redir(op, fd, target, heredoc)

    def _parse_if(self):
        self.next()
        lists = [self.parse_list()]
        self._expect("then")
        lists.append(self.parse_list())
        while True:
            self._skip_newlines()
            tok = self.peek()
            if self._is_word(tok, "elif"):
                self.next()
                lists.append(self.parse_list())
                self._expect("then")
                lists.append(self.parse_list())
            elif self._is_word(tok, "else"):
                self.next()
                lists.append(self.parse_list())
            else:
                break
        self._expect("fi")
        return Compound("if", lists)

    def _parse_for(self):
        self.next()
        tok = self.peek()
        if tok[0] == "arith":
            self.next()
            arith = tok[1]
            self._skip_sep()
            body = self._loop_body()
            node = Compound("arithfor", [body], words=[Word([arith], "")])
            return node
        name = self.next()
        var = name[1].literal() if name[0] == "word" else None
        self._skip_newlines()
        words = None
        if self._is_word(self.peek(), "in"):
            self.next()
            words = []
            while self.peek()[0] == "word":
                words.append(self.next()[1])
        self._skip_sep()
        body = self._loop_body()
        node = Compound("for", [body], words=words or [], name=var)
        node.over_params = words is None
        return node

    def _skip_sep(self):
        while self.peek()[0] == "nl" or (self.peek()[0] == "op" and self.peek()[1] == ";"):
            self.next()

    def _loop_body(self):
        self._skip_newlines()
        if self._is_word(self.peek(), "{"):
            self.next()
            body = self.parse_list()
            self._expect("}")
            return body
        self._expect("do")
        body = self.parse_list()
        self._expect("done")
        return body

    def _parse_case(self):
        self.next()
        subject = self.next()
        words = [subject[1]] if subject[0] == "word" else []
        self._skip_newlines()
        self._expect("in")
        lists = []
        while True:
            self._skip_newlines()
            tok = self.peek()
            if tok[0] == "eof" or self._is_word(tok, "esac"):
                break
            if tok[0] == "op" and tok[1] == "(":
                self.next()
            while True:  # patterns up to `)`
                t = self.next()
                if t[0] == "eof" or (t[0] == "op" and t[1] == ")"):
                    break
                if t[0] == "word":
                    words.append(t[1])
            lists.append(self.parse_list())
            if self.peek()[0] == "op" and self.peek()[1] in _CASE_ENDS:
                self.next()
            elif not self._is_word(self.peek(), "esac") and self.peek()[0] != "eof":
                if self.peek()[0] == "op" and self.peek()[1] == ")":
                    self.next()  # tolerate a stray `)`
                elif self.peek()[0] != "word":
                    self.next()
        self._expect("esac")
        return Compound("case", lists, words=words)


# The lexer parses the command substitutions inside words with this Parser (see shdollar.py).
Lexer.parser_class = Parser


def parse(text):
    return Parser(text).parse_program()
