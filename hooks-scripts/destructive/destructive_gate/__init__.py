"""Static analysis behind hookbox's destructive-command gate (see ../gate.py and docs/gates.md).

Modules:
  values    -- partially known strings (what a shell word or a python expression may hold) and
               the classification of paths against the workspace.
  shparse   -- a tolerant lexer and parser for POSIX sh / bash.
  shell     -- walks a parsed script like bash would: lists, pipelines, compound commands,
               expansion of words, and dispatch of each simple command to its handler.
  commands  -- one handler per known command, a module per family (builtins, output, wrappers,
               destructive, git, interpreters): the rules it triggers, the code it hands on to
               another interpreter, the output it produces when that can be known.
  shellutil -- the script state and helpers shared by shell and commands.
  pyscan    -- the same analysis for python code, on top of the `ast` module.
  engine    -- configuration, the rule checks shared by both analyses, and the decision.
  errors    -- the exception that ends an analysis with a deny.
"""
