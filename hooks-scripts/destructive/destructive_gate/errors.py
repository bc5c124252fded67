"""The exception that ends an analysis with a deny."""


class Blocked(Exception):
    def __init__(self, rule, reason):
        super().__init__(reason)
        self.rule = rule
        self.reason = reason
