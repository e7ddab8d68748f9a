"""Notebook hygiene: no outputs, no execution counts, only the metadata we mean to keep.

Outputs depend on the machine that ran a notebook, so committed notebooks carry none;
CI and learners produce them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

CELL_METADATA_KEYS = ("nbgrader", "tags", "deletable", "editable")
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
LANGUAGE_INFO = {"name": "python"}


class NotebookError(ValueError):
    """A notebook file that cannot be read as a notebook; the message names the file."""


def read(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, turning any parse or schema failure into a message that names the file."""
    try:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
    except FileNotFoundError:
        raise NotebookError(f"{path}: no such notebook") from None
    except Exception as error:  # nbformat raises several unrelated types
        raise NotebookError(f"{path}: not a valid notebook ({error})") from None
    return notebook


def clean(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``notebook`` without outputs, execution counts or machine-specific metadata."""
    notebook = nbformat.from_dict(notebook)
    notebook.metadata = nbformat.from_dict(
        {"kernelspec": KERNELSPEC, "language_info": LANGUAGE_INFO}
    )
    for cell in notebook.cells:
        cell.metadata = nbformat.from_dict(
            {key: cell.metadata[key] for key in CELL_METADATA_KEYS if key in cell.metadata}
        )
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        elif not cell.get("attachments"):
            cell.pop("attachments", None)
    return notebook


def to_text(notebook: nbformat.NotebookNode) -> str:
    """The canonical serialisation: nbformat's own writer, with a final newline."""
    return nbformat.writes(notebook) + "\n"


def write_clean(notebook: nbformat.NotebookNode, path: Path) -> None:
    """Write the cleaned ``notebook`` to ``path`` in canonical form."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_text(clean(notebook)), encoding="utf-8")


def is_clean(path: Path) -> bool:
    """Whether the file at ``path`` is exactly the canonical, cleaned form of itself."""
    return path.read_text(encoding="utf-8") == to_text(clean(read(path)))
