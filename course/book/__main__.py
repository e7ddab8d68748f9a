"""``python -m course.book``: build the book (see course/book/build.py)."""

import sys

from course.book.build import main

sys.exit(main())
