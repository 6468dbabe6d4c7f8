"""Rewrites the schedule of every record of a knowledge base (a test's way
to make a record the templates do not take): edit-kb-record.py KB TEMPLATE
KNOBS_JSON."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE records SET template = ?, knobs = ?", (sys.argv[2], sys.argv[3]))
db.commit()
