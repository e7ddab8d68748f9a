"""Sphinx configuration of the course's book (``make book``; see docs/contributors.md).

``python -m course.book`` stages the pages (the executed lessons, the exercises, the quizzes,
README.md and the guides) into a scratch source folder next to a copy of this file, and runs
Sphinx there: this file is read from that folder, so its paths are relative to it.
"""

project = "JAX on NVIDIA GPUs"
author = "the course's contributors"
copyright = "the course's contributors, Apache-2.0"
html_title = "JAX on NVIDIA GPUs"

extensions = ["myst_nb"]
root_doc = "index"
exclude_patterns = ["_build"]

# The lessons were executed once, by the suite or by `make book`: never execute here.
nb_execution_mode = "off"
nb_merge_streams = True
nb_output_stderr = "show"
nb_ipywidgets_js = {}  # widgets are drawn statically: no widget manager from a CDN

myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3  # links to guide sections (#grading-untrusted-code) resolve

# MathJax 3 (one file: TeX in, SVG out, no web fonts) from the pinned sphinx-mathjax-offline
# package, copied into _static/mathjax, so a page with a formula loads nothing from outside.
mathjax_path = "mathjax/tex-svg.js"

html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["book.css"]
html_js_files = ["search-summary.js"]
html_favicon = "_static/favicon.svg"  # else browsers ask for /favicon.ico, which is not there
html_context = {"default_mode": "light"}  # the theme logs an error on a page without a mode
html_last_updated_fmt = None
html_show_sphinx = False
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "navigation_with_keys": False,
    "show_navbar_depth": 1,
    "navbar_persistent": [],  # one search field (the sidebar's), not a second one above it
}
