"""Static analysis behind hookbox's destructive-command gate (see ../gate.py and docs/gates.md).

Modules:
  values    -- partially known strings (what a shell word or a python expression may hold) and
               the classification of paths against the workspace.
  shparse   -- a tolerant lexer and parser for POSIX sh / bash: the Parser and parse(), on the
               syntax tree of shnodes and the tokenizer of shlexer (whose mixin in shdollar
               lexes the expansions inside words: `$...`, backticks, `<( )`).
  shell     -- walks a parsed script like bash would: lists, pipelines, compound commands,
               expansion of words, and dispatch of each simple command to its handler.
               ShellAnalyzer is composed of one mixin per concern, a module each: shwords
               (expansion of words and parameters; its stateless helpers in shexpand),
               shdispatch (a command to its function, handler, script file or interpreter),
               shforks (fork bombs).
  commands  -- one handler per known command, a module per family (builtins, output, wrappers,
               destructive, git, interpreters): the rules it triggers, the code it hands on to
               another interpreter, the output it produces when that can be known.
  shellutil -- the script state and helpers shared by shell and commands.
  pyscan    -- the same analysis for python code, on top of the `ast` module: PythonAnalyzer and
               the scan, composed of one mixin per concern, a module each: pyscan_helpers
               (names, scopes, values as strings), pyscan_statements, pyscan_expressions,
               pyscan_calls (what each known function means), pyscan_methods (decoders, methods
               of strings, paths and files), pyscan_rules (hand-offs to the shell and python
               analyses, files written and read).
  pytables  -- the python names the scan knows: what runs code, deletes, moves, forks ...
  pyvalues  -- the values of python expressions besides strings: lists, paths, modules, files.
  engine    -- configuration, the rule checks shared by both analyses, and the decision.
  errors    -- the exception that ends an analysis with a deny.
"""
