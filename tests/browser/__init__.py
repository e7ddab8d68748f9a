"""End-to-end tests of the course in JupyterLab, driven through Debian's chromium by playwright."""
