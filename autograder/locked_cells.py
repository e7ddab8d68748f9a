"""nbgrader's OverwriteCells, which also puts back the locked code cells a submission lacks.

nbgrader adds back a deleted graded cell, but not a deleted setup or example cell, nor one
whose nbgrader metadata the student removed (which makes it an ordinary cell of theirs). The
tests call what those cells define, so such a cell would run as the student wrote it. Every
missing cell is now put back after the nearest earlier cell of the source that the
submission has: nbgrader's own placement looks that cell up among graded and answer cells
only, and fails when it is a locked cell.
"""

from __future__ import annotations

import nbformat
from nbformat import NotebookNode
from nbgrader.api import SourceCell
from nbgrader.preprocessors import OverwriteCells


class OverwriteAllCells(OverwriteCells):
    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        # A cell copied and pasted in JupyterLab keeps the original's nbgrader metadata; nbgrader's
        # DeduplicateIds then empties it in one of the two, and OverwriteCells' own
        # add_missing_task_cells fails on the empty metadata (KeyError: 'grade_id'): the copy is
        # the student's cell, as DeduplicateIds meant.
        for cell in nb.cells:
            if cell.get("metadata", {}).get("nbgrader", None) == {}:
                del cell.metadata["nbgrader"]
        return super().preprocess(nb, resources)

    def add_missing_grade_cells(
        self, nb: NotebookNode, resources: dict
    ) -> tuple[NotebookNode, dict]:
        source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        points = {cell.name: cell.max_score for cell in source.grade_cells}
        answers = {cell.name for cell in source.solution_cells}
        position = -1  # where in nb the last source cell seen so far sits
        for source_cell in source.source_cells:
            found = _index_of(nb, source_cell.name)
            if found is not None:
                position = found
                continue
            if source_cell.name in points:
                cell = self.missing_cell_transform(
                    source_cell, points[source_cell.name], is_solution=source_cell.name in answers
                )
            elif source_cell.locked and source_cell.cell_type == "code":
                cell = _locked_cell(source_cell)
            else:
                continue
            self.log.warning("Missing cell %s encountered, adding to notebook", source_cell.name)
            position += 1
            nb.cells.insert(position, cell)
        return nb, resources


def _index_of(nb: NotebookNode, grade_id: str) -> int | None:
    for index, cell in enumerate(nb.cells):
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return index
    return None


def _locked_cell(source_cell: SourceCell) -> NotebookNode:
    """The source's cell, as written: the guard knows a locked cell by its exact source."""
    nbgrader = {
        "grade": False,
        "grade_id": source_cell.name,
        "locked": True,
        "checksum": source_cell.checksum,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    metadata = {"deletable": False, "editable": False, "nbgrader": nbgrader}
    return nbformat.from_dict(
        {
            "cell_type": "code",
            "execution_count": None,
            "outputs": [],
            "metadata": metadata,
            "source": source_cell.source,
        }
    )
