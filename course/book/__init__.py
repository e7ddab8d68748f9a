"""The course as a book: a static site of the lessons with their outputs, built by ``make book``.

``lessons.py`` executes a lesson once (the suite's check, and the copy the book shows);
``gpu_runs.py`` reads the GPU check's reports under ``docs/gpu-runs/``; ``pages.py`` turns an
executed lesson into its page (GPU outputs under the CPU ones, widgets drawn statically);
``quiz_pages.py`` writes a lesson's quiz as a page; ``build.py`` stages the sources and runs
Sphinx (``python -m course.book``).
"""
