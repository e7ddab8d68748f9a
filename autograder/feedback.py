"""Feedback that shows students their results without the hidden tests' code.

nbgrader's feedback is rendered from the autograded notebook, whose test cells hold the
hidden tests in full, and a failing hidden test's traceback quotes the failing lines. So
before nbgrader renders it, the hidden regions are cut out with nbgrader's own
ClearHiddenTests, and the traceback of every cell that had one is cut to its last line
(the error type and message the test author wrote).
"""

from __future__ import annotations

import html

import nbformat
from nbgrader.preprocessors import ClearHiddenTests

HIDDEN_NOTE = "# (hidden tests ran here; their code is not shown)"


def hide_hidden_tests(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a copy of an autograded ``notebook`` with no hidden test code in it."""
    notebook = nbformat.from_dict(notebook)
    clear = ClearHiddenTests()
    for cell in notebook.cells:
        if not clear._remove_hidden_test_region(cell):
            continue
        cell.source = f"{cell.source.rstrip()}\n{HIDDEN_NOTE}".lstrip()
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output.traceback = [f"{output.ename}: {output.evalue}"]
    return notebook


def unavailable_page(student: str, assignment: str, status: str, message: str) -> str:
    """A plain feedback page for a submission that could not be graded."""
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(assignment)}: feedback</title></head><body>\n"
        f"<h1>{html.escape(assignment)}: {html.escape(student)}</h1>\n"
        f"<p>Your submission could not be graded (<b>{html.escape(status)}</b>); "
        "it scores 0.</p>\n"
        f"<pre>{html.escape(message)}</pre>\n</body></html>\n"
    )
