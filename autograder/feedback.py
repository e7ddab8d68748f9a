"""Feedback that shows students their results without the hidden tests' code.

nbgrader's feedback is rendered from the autograded notebook, whose test cells hold the
hidden tests in full, and a failing hidden test's traceback quotes the failing lines. So
before nbgrader renders it, the hidden regions are cut out with nbgrader's own
ClearHiddenTests, and the traceback of every cell that had one is cut to its last line
(the error type and message the test author wrote).

An answer runs inside the hidden tests, so it can print what it finds there (the calling
frame's globals, ``In[-1]``, the notebook file) or raise it as an error message. So a cell
with hidden tests keeps only its errors in the feedback, and any output, in any cell, that
quotes a line of the hidden tests is withheld.
"""

from __future__ import annotations

import html

import nbformat
from nbgrader.preprocessors import ClearHiddenTests

HIDDEN_NOTE = "# (hidden tests ran here; their code is not shown)"
OUTPUT_NOTE = "(what the hidden tests printed is not shown)\n"
QUOTE_NOTE = "(output withheld: it quotes the hidden tests)"
MIN_QUOTED = 12  # shorter lines ("else:", "pass") give nothing away


def _hidden_lines(notebook: nbformat.NotebookNode, clear: ClearHiddenTests) -> set[str]:
    """The hidden tests' lines worth hiding: long enough, and not also in the shown code."""
    hidden, shown = set(), set()
    for cell in notebook.cells:
        inside = False
        for line in cell.source.split("\n"):
            if clear.begin_test_delimeter in line:
                inside = True
            elif clear.end_test_delimeter in line:
                inside = False
            elif len(line.strip()) >= MIN_QUOTED:
                (hidden if inside else shown).add(line.strip())
    return hidden - shown


def _output_text(output: nbformat.NotebookNode) -> str:
    if output.get("output_type") == "stream":
        return str(output.get("text", ""))
    if output.get("output_type") == "error":
        return "\n".join([str(output.get("evalue", "")), *output.get("traceback", [])])
    return "\n".join(str(value) for value in output.get("data", {}).values())


def _withheld(output: nbformat.NotebookNode) -> nbformat.NotebookNode:
    if output.get("output_type") == "error":  # the test still failed: say so, not what it said
        return nbformat.v4.new_output(
            "error", ename=output.ename, evalue=QUOTE_NOTE, traceback=[f"{output.ename}: ..."]
        )
    return nbformat.v4.new_output("stream", name="stdout", text=QUOTE_NOTE + "\n")


def hide_hidden_tests(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a copy of an autograded ``notebook`` with no hidden test code in it."""
    notebook = nbformat.from_dict(notebook)
    clear = ClearHiddenTests()
    quoted = _hidden_lines(notebook, clear)
    for cell in notebook.cells:
        if cell.get("cell_type") == "code" and clear._remove_hidden_test_region(cell):
            cell.source = f"{cell.source.rstrip()}\n{HIDDEN_NOTE}".lstrip()
            errors = [o for o in cell.outputs if o.get("output_type") == "error"]
            for output in errors:
                output.traceback = [f"{output.ename}: {output.evalue}"]
            note = [nbformat.v4.new_output("stream", name="stdout", text=OUTPUT_NOTE)]
            cell.outputs = (note if len(errors) < len(cell.outputs) else []) + errors
        elif cell.get("cell_type") != "code":
            clear._remove_hidden_test_region(cell)
        for index, output in enumerate(cell.get("outputs", [])):
            text = _output_text(output)
            if any(line in text for line in quoted):
                cell.outputs[index] = _withheld(output)
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
