"""What the Python unit tests share: one "PASS: SUITE: ..." or "FAIL:
SUITE: ..." line per check, like the C unit tests, and the scripts of
scripts/ (which have no .py) loaded as modules."""

import importlib.machinery
import importlib.util
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


class Checks:
    def __init__(self, suite):
        self.suite, self.failures = suite, 0

    def __call__(self, ok, name):
        print("%s: %s: %s" % ("PASS" if ok else "FAIL", self.suite, name))
        self.failures += not ok

    def exit(self):
        raise SystemExit(1 if self.failures else 0)


def script_path(name):
    return os.path.join(ROOT, "scripts", name)


def load_script(name):
    """scripts/NAME as a module, its main() not run."""
    loader = importlib.machinery.SourceFileLoader(name, script_path(name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module
