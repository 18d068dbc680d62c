"""The type stubs (`_absolve.pyi`) name the same parameters as the functions themselves."""

import ast
import inspect
from pathlib import Path

import absolve

STUBS = Path(absolve.__file__).with_name("_absolve.pyi")


def stub_parameters():
    tree = ast.parse(STUBS.read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node.args
        if isinstance(node, ast.ClassDef) and node.name == "Rewriter":
            init = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
            found["Rewriter"] = init.args
    return found


def names(args):
    plain = [a.arg for a in args.posonlyargs + args.args if a.arg != "self"]
    return plain + [a.arg for a in args.kwonlyargs]


def test_every_function_in_the_stubs_has_the_same_parameters():
    stubs = stub_parameters()
    for name in ["resolve", "rewrite", "links", "iter_links", "links_table", "warc_links", "warc_link_batches", "Rewriter"]:
        actual = list(inspect.signature(getattr(absolve, name)).parameters)
        assert names(stubs[name]) == actual, name
