"""Adds a copy of record 1 of a knowledge base under another signature that
begins like its own (the same kernel IR, knobs and schedule hash; only the
signature's tail differs): clone-kb-record.py KB TAIL."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
columns = [row[1] for row in db.execute("PRAGMA table_info(records)") if row[1] != "id"]
values = list(db.execute(f"SELECT {', '.join(columns)} FROM records WHERE id = 1").fetchone())
at = columns.index("signature")
values[at] = values[at][:8] + sys.argv[2]
db.execute(f"INSERT INTO records({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values)
db.commit()
